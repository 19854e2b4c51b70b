package limitsim_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/lab/limitsim"
)

// TestQueueBackend: on servers behind a queue a request that finds every
// server busy waits for one, and then takes its whole time, so a fixed
// size of 3 over a capacity of 2 makes the p99 about twice the work's; on
// the backend that shares itself the same size slows each request in
// service by half at most. At a size of 2 neither holds a queue.
func TestQueueBackend(t *testing.T) {
	p99 := func(queue bool, size int64) float64 {
		sc := limitsim.Open{Name: "queue", Length: 10 * time.Second, Capacity: 2, Load: 2, Queue: queue}
		var res limitsim.Result
		synctest.Test(t, func(t *testing.T) {
			res = limitsim.RunOpen(sc, limitsim.FixedContender(size).New(), false, 1)
		})
		var lat []time.Duration
		for _, s := range res.Successes {
			lat = append(lat, s.Latency)
		}
		slices.Sort(lat)
		return float64(lat[len(lat)*99/100]) / float64(limitsim.Service)
	}
	t.Logf("queue 2: %.2f, 3: %.2f; shared 2: %.2f, 3: %.2f", p99(true, 2), p99(true, 3), p99(false, 2), p99(false, 3))
	assert.Greater(t, p99(true, 3), 1.85, "on a queue, the third request waits a whole service time")
	assert.Less(t, p99(false, 3), 1.8, "on the shared backend, three requests over 2 take half as long again")
	for _, queue := range []bool{true, false} {
		assert.Less(t, p99(queue, 2), 1.25, "at the capacity nothing waits (queue %t)", queue)
	}
}

package outsideshared

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestBackendOracle checks the simulator itself: PS latencies.
func TestBackendOracle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := NewPS(2)
		defer b.Close()
		t0 := time.Now()
		c1 := b.Submit(10 * time.Millisecond)
		time.Sleep(5 * time.Millisecond)
		c2 := b.Submit(10 * time.Millisecond)
		c3 := b.Submit(10 * time.Millisecond)
		<-c1 // 5ms alone, then 3 share 2 servers: 5ms of work at 2/3 -> 7.5ms: ends at 12.5ms
		d := time.Since(t0)
		assert.LessOrEqual(t, (d - 12500*time.Microsecond).Abs(), time.Duration(2), "c1 at %v", d)
		<-c2
		<-c3 // each had 7.5*2/3=5ms done at 12.5, 5 left at rate 1 -> 17.5
		d = time.Since(t0)
		assert.LessOrEqual(t, (d - 17500*time.Microsecond).Abs(), time.Duration(2), "c3 at %v", d)
		time.Sleep(time.Second)
		t1 := time.Now()
		<-b.Submit(8 * time.Millisecond)
		d = time.Since(t1)
		assert.LessOrEqual(t, (d - 8*time.Millisecond).Abs(), time.Duration(2), "idle job took %v", d)
	})
}

package semexpvar

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/semacat/sem"
)

// bounds are the histogram's upper bounds, decades from a microsecond to
// ten seconds; a last bucket, +Inf, takes what waited longer.
var bounds = [...]time.Duration{
	time.Microsecond, 10 * time.Microsecond, 100 * time.Microsecond,
	time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
	time.Second, 10 * time.Second,
}

// histogram counts waits with atomic additions only, so that waits that end
// together never wait for each other. A read sees each counter's own latest
// value; the count of waits is the sum of the buckets read in that same
// pass, so that it always equals the +Inf bucket, as a bridge to
// Prometheus needs, while the failures and the sum may be the waits that
// ended during the read apart from it.
type histogram struct {
	failed  atomic.Uint64
	sum     atomic.Int64 // nanoseconds
	buckets [len(bounds) + 1]atomic.Uint64
}

// observe counts one wait; it is the OnWait function.
func (h *histogram) observe(e sem.WaitEvent) {
	d := e.Waited()
	i := 0
	for i < len(bounds) && d > bounds[i] {
		i++
	}
	h.buckets[i].Add(1)
	h.sum.Add(int64(d))
	if e.Err != nil {
		h.failed.Add(1)
	}
}

// export adds the histogram's members to m.
func (h *histogram) export(m map[string]any) {
	m["waits_failed"] = h.failed.Load()
	m["wait_seconds_sum"] = time.Duration(h.sum.Load()).Seconds()
	cumulative := make(map[string]uint64, len(h.buckets))
	var n uint64
	for i := range h.buckets {
		n += h.buckets[i].Load()
		le := "+Inf"
		if i < len(bounds) {
			le = strconv.FormatFloat(bounds[i].Seconds(), 'g', -1, 64)
		}
		cumulative[le] = n
	}
	m["waits"] = n
	m["wait_seconds_bucket"] = cumulative
}

package benchmarks

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram records wait durations. It is an HDR histogram
// (github.com/HdrHistogram/hdrhistogram-go) keeping histDigits significant
// digits from histMin to histMax: small enough to give each of a scenario's
// goroutines its own and merge them afterwards, so that recording takes no
// lock.
type Histogram struct{ h *hdrhistogram.Histogram }

const (
	histMin    = 1                  // ns
	histMax    = int64(time.Minute) // longer waits are recorded as a minute
	histDigits = 2
)

// NewHistogram returns an empty histogram.
func NewHistogram() *Histogram {
	return &Histogram{hdrhistogram.New(histMin, histMax, histDigits)}
}

// Record adds one wait.
func (h *Histogram) Record(d time.Duration) {
	_ = h.h.RecordValue(min(max(int64(d), 0), histMax)) // in range: cannot fail
}

// Merge adds every wait recorded in o.
func (h *Histogram) Merge(o *Histogram) { h.h.Merge(o.h) }

// Count is the number of waits recorded.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Percentile is the wait that p percent (0 < p ≤ 100) of the waits did not
// exceed.
func (h *Histogram) Percentile(p float64) time.Duration {
	return time.Duration(h.h.ValueAtPercentile(p))
}

// Max is the longest wait, to within the histogram's precision.
func (h *Histogram) Max() time.Duration { return time.Duration(h.h.Max()) }

// Latency is the waits of one run, from the acquirer's side: how long each
// successful blocking Acquire took. Each wait includes the cost of one clock
// read (some tens of nanoseconds), the floor of what can be measured.
type Latency struct {
	// Histogram holds every wait, but the large requests' in a Starvation
	// scenario.
	*Histogram
	// Big holds the large requests' waits in a Starvation scenario.
	Big *Histogram
}

func (sc Scenario) latency(ws []*worker) Latency {
	l := Latency{Histogram: NewHistogram(), Big: NewHistogram()}
	for _, w := range ws {
		if sc.Kind == Starvation && w.id == 0 {
			l.Big.Merge(w.wait)
		} else {
			l.Merge(w.wait)
		}
	}
	return l
}

// Jain is Jain's fairness index of xs, (Σx)² / (n·Σx²): 1 when every
// goroutine got the same share, 1/n when one got everything. It is 0 when
// there is nothing to share.
func Jain(xs []int64) float64 {
	var sum, squares float64
	for _, x := range xs {
		sum += float64(x)
		squares += float64(x) * float64(x)
	}
	if squares == 0 {
		return 0
	}
	return sum * sum / (float64(len(xs)) * squares)
}

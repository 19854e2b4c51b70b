package adaptive

import (
	"math"
	"sync/atomic"
	"time"
)

// A window closes once it has lasted windowRTTs times the lowest latency
// seen, and at least minWindow, and holds at least minSamples samples. The
// Limiter samples one request in a power of two so that about
// targetSamples land in a window, and at least one in maxSampling.
const (
	windowRTTs    = 2
	minWindow     = time.Millisecond
	minSamples    = 10
	targetSamples = 2 * minSamples
	maxSampling   = 256
)

// samplingMask returns the mask that samples about targetSamples of the
// requests a window as long as the last, which saw about requests, will see.
func samplingMask(requests uint64) uint64 {
	every := uint64(1)
	for every*2*targetSamples <= requests && every < maxSampling {
		every *= 2
	}
	return every - 1
}

// Window summarises the requests that ended during one window of time: what
// an [Algorithm] decides from.
type Window struct {
	// Limit is the limit in force, before rounding.
	Limit float64
	// InFlight is the most permits that were held, through tokens or
	// Acquire, when a sampled request of the window ended, that one
	// included; or the limit, if TryStart, Start or a priority class
	// refused a request during the window.
	InFlight int64
	// Samples counts the sampled requests that ended and every failed one,
	// Drops the failed ones.
	Samples, Drops int64
	// DropRate is the share of the window's sampled requests that failed:
	// unlike Drops over Samples, it is not raised by failures being counted
	// whether sampled or not. It is 0 if none was sampled.
	DropRate float64
	// MinRTT and MeanRTT are the lowest and the mean latency of the
	// sampled requests that succeeded; both are 0 if none did.
	MinRTT, MeanRTT time.Duration
	// NoLoadRTT is the latency of a request that finds the backend idle:
	// the lowest latency seen since the last probe, which every hundred
	// times the shortest window holds the limit at half for two windows and
	// takes the fastest latency of the second.
	NoLoadRTT time.Duration
}

// window gathers samples with atomic operations only, so that requests
// ending at the same time never wait for each other; the goroutine that
// closes it swaps each counter out. A sample that lands while the counters
// are swapped may be split across two windows: a window is a statistic, and
// one sample more or less does not change it.
type window struct {
	start          atomic.Int64 // Limiter.now() when the window opened
	samples, drops atomic.Int64
	measured       atomic.Int64 // sampled requests, failed or not
	measuredDrops  atomic.Int64 // sampled requests that failed
	sumRTT, minRTT atomic.Int64 // over successes; minRTT is MaxInt64 if none
	maxInFlight    atomic.Int64
}

// record adds a request that ended; measured if it was sampled, and then
// its latency rtt counts if ok.
func (w *window) record(rtt time.Duration, ok, measured bool, inFlight int64) {
	w.samples.Add(1)
	if measured {
		w.measured.Add(1)
	}
	if !ok {
		w.drops.Add(1)
		if measured {
			w.measuredDrops.Add(1)
		}
	} else {
		w.sumRTT.Add(int64(rtt))
		lower(&w.minRTT, int64(rtt))
	}
	raise(&w.maxInFlight, inFlight)
}

// due reports whether the window has lasted length and holds enough samples.
func (w *window) due(now, length int64) bool {
	return now-w.start.Load() >= length && w.samples.Load() >= minSamples
}

// take closes the window at now and opens the next one. It returns the
// window and how many of its requests were sampled.
func (w *window) take(now int64) (s Window, measured int64) {
	measured = w.measured.Swap(0)
	if drops := w.measuredDrops.Swap(0); measured > 0 {
		s.DropRate = float64(drops) / float64(measured)
	}
	s = Window{
		DropRate: s.DropRate,
		Samples:  w.samples.Swap(0),
		Drops:    w.drops.Swap(0),
		InFlight: w.maxInFlight.Swap(0),
	}
	sum, lowest := w.sumRTT.Swap(0), w.minRTT.Swap(math.MaxInt64)
	if ok := s.Samples - s.Drops; ok > 0 && lowest != math.MaxInt64 {
		s.MinRTT, s.MeanRTT = time.Duration(lowest), time.Duration(sum/ok)
	}
	w.start.Store(now)
	return s, measured
}

func (w *window) reset(now int64) {
	w.minRTT.Store(math.MaxInt64)
	w.start.Store(now)
}

// lower stores v in a if it is below a's value.
func lower(a *atomic.Int64, v int64) {
	for old := a.Load(); v < old && !a.CompareAndSwap(old, v); old = a.Load() {
	}
}

// raise stores v in a if it is above a's value.
func raise(a *atomic.Int64, v int64) {
	for old := a.Load(); v > old && !a.CompareAndSwap(old, v); old = a.Load() {
	}
}

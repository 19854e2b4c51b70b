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

// A window's mean latency is precise only over enough samples: about
// (CV/precision)² for a standard error of precision times the mean, where
// CV is the latencies' standard deviation over their mean. Work whose time
// varies by ±20% needs fewer than minSamples for a tenth; exponential
// work, whose CV is 1, a hundred. So a window also waits for the samples
// that the latencies' spread, as the last windows measured it, asks for:
// for a standard error of windowPrecision, or of the distance of the last
// window's mean from the no-load mean over windowZ, whichever is larger,
// since a window far off the baseline says so in fewer samples. A probe's
// measuring window waits for probePrecision. No window waits for more
// than maxSamplesNeeded, nor, once it holds minSamples, longer than
// maxWindowMeans times the last window's mean latency.
const (
	windowPrecision  = 0.1
	probePrecision   = 0.1
	unpooledSamples  = 4 * minSamples
	windowZ          = 3
	maxSamplesNeeded = 1000
	maxWindowMeans   = 50
	spreadSmoothing  = 0.25    // the weight of each window in the latencies' squared CV
	maxSquared       = 1 << 24 // the longest latency squared, in microseconds
)

// samplesNeeded returns the samples a window of latencies whose squared CV
// is cv2 needs for the standard error of its mean to be precision of it.
func samplesNeeded(cv2, precision float64) int64 {
	return int64(min(max(cv2/(precision*precision), minSamples), maxSamplesNeeded))
}

// samplingMask returns the mask that samples about target of the requests
// a window as long as the last, which saw about requests, will see.
func samplingMask(requests, target uint64) uint64 {
	every := uint64(1)
	for every*2*target <= requests && every < maxSampling {
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
	// NoLoadMeanRTT is the mean latency of requests on an idle backend:
	// the median of the last three probes' mean latencies that did not
	// find a queue, or once three of the same level have counted, the
	// mean of the requests of the last sixteen of them. It is given only where the work's time varies widely,
	// so that a window's fastest request says nothing (see [Gradient]),
	// as the probes tell: their fastest requests stand well above the
	// lowest seen before them; until two windows in a row vary as little
	// as ±20% work. It is 0 otherwise.
	NoLoadMeanRTT time.Duration
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
	sumSquares     atomic.Int64 // over successes, of the latency in microseconds, squared
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
		us := min(int64(rtt/time.Microsecond), maxSquared)
		w.sumSquares.Add(us * us)
		lower(&w.minRTT, int64(rtt))
	}
	raise(&w.maxInFlight, inFlight)
}

// due reports whether the window has lasted length and holds need
// samples, or has lasted longest and holds minSamples.
func (w *window) due(now, length, need, longest int64) bool {
	lasted, samples := now-w.start.Load(), w.samples.Load()
	return lasted >= length && samples >= minSamples && (samples >= need || lasted >= longest)
}

// take closes the window at now and opens the next one. It returns the
// window, how many of its requests were sampled, and the squared
// coefficient of variation of its latencies (0 if fewer than two
// succeeded).
func (w *window) take(now int64) (s Window, measured int64, cv2 float64) {
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
	sum, lowest, squares := w.sumRTT.Swap(0), w.minRTT.Swap(math.MaxInt64), w.sumSquares.Swap(0)
	if ok := s.Samples - s.Drops; ok > 0 && lowest != math.MaxInt64 {
		s.MinRTT, s.MeanRTT = time.Duration(lowest), time.Duration(sum/ok)
		if mean := float64(s.MeanRTT) / float64(time.Microsecond); ok > 1 && mean >= 1 {
			cv2 = max(0, float64(squares)/float64(ok)/(mean*mean)-1)
		}
	}
	w.start.Store(now)
	return s, measured, cv2
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

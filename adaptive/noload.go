package adaptive

import (
	"slices"
	"time"
)

// Every probeEvery times the shortest window the Limiter probes the no-load
// latency: it holds the limit at half its value for probeWindows windows,
// the first to let the requests in flight drain, the last to measure. The
// period is in time, not in windows, since a window also waits for enough
// samples, and at a limit of a few requests a hundred windows can last many
// seconds: a limit that a latency step pushed to its floor would wait that
// long to learn.
const (
	probeEvery   = 100
	probeWindows = 2
)

// Work whose time varies widely (see noLoad.wide) changes the probe. Its
// measuring window waits for a precise mean (see samplesNeeded), so the
// next probe follows only after probeSpacing times the last one's length,
// which keeps the probes' cost to about a fortieth of the capacity; but
// while the no-load mean is unknown, or the last probe found a queue, or
// fewer than probeMedian probes have counted since, the next follows after
// probeSoon windows' time or probeSoonSpacing times the last probe's
// length. Its first window lasts at least probeDrain times the mean latency
// before the probe, so that the requests admitted at the full limit end
// before the second measures.
const (
	probeSpacing     = 20
	probeSoon        = 10
	probeSoonSpacing = 3
	probeDrain       = 4
)

// A probe's mean latency counts only if it is more than probeQueued times
// the mean latency before the probe (of the last windows' samples, each
// window's weighing half the next's, so that one window's chance does not
// decide): halving the limit from one at
// least 1/probeQueued times the capacity would lower it that much, so a
// probe that fell more ran into a queue, as one taken from a start far
// above the capacity does. Such a probe's mean is only a bound: the
// no-load mean is lowered to it, and the limit to the probe's, at once.
// The no-load mean is the median of the last probeMedian probes that
// count, so that one probe that chance made fast or slow does not move it.
const (
	probeQueued = 0.6
	probeMedian = 3
)

// The work's time varies widely when its spread at the low end, the range
// of the fastest requests' latencies over the least, is more than
// wideSpread. The fastest of n requests exceeds the least by about that
// range over n+1, so each probe that finds no queue estimates it as its
// fastest latency over the lowest seen before it, less one, times its
// requests plus one; the estimates are smoothed from 0, each weighing
// wideSmoothing. Work whose time varies by ±20% has a spread of a half;
// work with a slow tail but no faster requests than the usual, none; by
// ±50%, 2; exponential work, a spread without bound.
const (
	wideSpread    = 1
	narrowSpread  = 0.25 // below it, work that varied widely varies no more
	wideSmoothing = 0.5
	maxSpread     = 4    // the most one probe adds
	spreadQueued  = 0.75 // a probe whose mean fell more than this with the limit may have queued
	stepRise      = 1.25 // a probe whose mean rose more than this over the no-load mean saw a latency step
)

// noLoad learns the no-load latency: the lowest latency seen, except that
// a probe replaces it with the fastest latency of a window run at half the
// limit, as BBR's ProbeRTT drains its queue to measure the round trip
// anew. A backend whose latency rises for good, for reasons that have
// nothing to do with load, is so learnt anew within one period of probes;
// and since a window at half the limit holds no queue while the limit is
// near the capacity, the probe does not let queueing creep into the
// no-load latency under sustained overload, as a minimum that merely
// expired would. The probe's mean latency is learnt too: the no-load mean,
// the baseline of a window's mean where the work's time varies widely.
type noLoad struct {
	rtt         time.Duration              // the no-load latency; 0 until a window succeeds
	mean        time.Duration              // the no-load mean; 0 until a probe succeeds
	means       [probeMedian]time.Duration // the last probes' means that counted, oldest first
	counted     int                        // of means
	spread      float64                    // the work's spread at its low end, smoothed over probes from 0
	spreadKnown bool                       // a probe has estimated spread
	isWide      bool                       // see wide
	ended       int64                      // Limiter.now() when the last probe ended, or rtt was first learnt
	started     int64                      // Limiter.now() when the last probe started
	length      int64                      // how long the last probe lasted
	before      time.Duration              // recent when the probe started
	recent      [2]float64                 // the latencies and the count of the samples of the last windows outside probes, each weighing half the next
	probing     int                        // windows of the probe left, 0 if none runs
	soon        bool                       // the next probe comes soon
	queued      bool                       // the last probe found a queue
}

// wide reports whether the work's time varies widely: then the window's
// mean latency, against the no-load mean, is the signal, not its fastest.
func (n *noLoad) wide() bool { return n.isWide }

// learn adds a window's fastest and mean latency, 0 if none succeeded, and
// how many samples it held,
// reports whether rtt changed and whether the window was part of a probe,
// whose windows the algorithm must not see.
func (n *noLoad) learn(fastest, mean time.Duration, samples int64) (changed, probe bool) {
	old := n.rtt
	switch {
	case n.probing > 0:
		probe = true
		if n.probing--; n.probing == 0 && fastest > 0 {
			rise := n.rise(fastest, mean)
			if n.learnMean(mean); float64(mean) >= spreadQueued*float64(n.before) {
				n.learnSpread(rise, samples)
			}
			n.rtt = fastest
		}
	case fastest > 0 && (n.rtt == 0 || fastest < n.rtt):
		n.rtt = fastest
	}
	if !probe && mean > 0 {
		n.recent[0] = n.recent[0]/2 + float64(mean)*float64(samples)
		n.recent[1] = n.recent[1]/2 + float64(samples)
	}
	return n.rtt != old, probe
}

// rise returns how much a probe whose fastest and mean latency are those
// raised the fastest latency over the lowest seen before it, relative to
// how much it raised the mean over the no-load mean if that is more than
// stepRise: a backend that became slower for good raises both alike, and
// its fastest request, above the lowest seen before, says so, not that the
// work varies.
func (n *noLoad) rise(fastest, mean time.Duration) float64 {
	rise := float64(fastest) / float64(n.rtt)
	if step := float64(mean) / float64(n.mean); n.mean > 0 && step > stepRise {
		rise /= step
	}
	return rise
}

// learnSpread adds the rise of a probe that found no queue (see rise), and
// how many of its requests succeeded.
func (n *noLoad) learnSpread(rise float64, samples int64) {
	x := min(max(0, rise-1)*float64(samples+1), maxSpread)
	n.spread += wideSmoothing * (x - n.spread)
	n.spreadKnown = true
	switch {
	case n.spread > wideSpread:
		n.isWide = true
	case n.spread < narrowSpread:
		n.isWide = false
	}
}

// learnMean adds the mean latency of a probe's measuring window.
func (n *noLoad) learnMean(mean time.Duration) {
	n.queued = float64(mean) < probeQueued*float64(n.before)
	if n.queued { // a bound: the no-load mean is lower
		if n.mean == 0 || mean < n.mean {
			n.mean, n.counted = mean, 0
		}
		n.soon = true
		return
	}
	if n.counted == probeMedian {
		copy(n.means[:], n.means[1:])
		n.counted--
	}
	n.means[n.counted] = mean
	n.counted++
	n.soon = n.counted < probeMedian
	sorted := n.means
	slices.Sort(sorted[:n.counted])
	n.mean = sorted[(n.counted-1)/2] // of two, the lower
}

// probeDue reports whether the window that closes at now, when the
// shortest window is winLen, is the last before a probe, and starts the
// probe if so.
func (n *noLoad) probeDue(now, winLen int64) bool {
	if n.rtt == 0 || n.probing > 0 {
		return false
	}
	if n.ended == 0 { // the first latency: the period starts
		n.ended = now
	}
	period := probeEvery * winLen
	if !n.spreadKnown { // the first probe tells whether the work varies widely
		period = probeSoon * winLen
	}
	if n.wide() {
		period = max(period, probeSpacing*n.length)
		if n.soon || n.mean == 0 {
			period = max(probeSoon*winLen, probeSoonSpacing*n.length)
		}
	}
	if now-n.ended < period {
		return false
	}
	n.probing, n.started = probeWindows, now
	if n.recent[1] > 0 {
		n.before = time.Duration(n.recent[0] / n.recent[1])
	}
	return true
}

// probeEnded records that the probe ended at now.
func (n *noLoad) probeEnded(now int64) {
	n.ended, n.length = now, now-n.started
}

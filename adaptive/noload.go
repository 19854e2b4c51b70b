package adaptive

import (
	"cmp"
	"math"
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
// while the no-load mean is unknown, or fewer than probeMedian probes have
// counted since one found a queue, or the last one's mean rose as a
// latency step's would, the next follows after probeSoon windows' time or
// probeSoonSpacing times the last probe's length; and after a probe that
// found a queue, which halved a limit of twice the capacity or more, after
// probeSoon windows' time or the last probe's length, so that a limit
// started far above a small capacity comes down in a few seconds. Its first window lasts at least probeDrain times the mean latency
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
// count, so that one probe that chance made fast or slow does not move it,
// until the pool of the probes of its level holds that many (pool.go).
// A mean before the probe is that of the requests that succeeded, and
// where more than probeFailed of the requests failed, as those that a
// queue makes outlast their deadline do, it leaves out the slowest and
// cannot show the fall: a probe then also ran into a queue if fewer than
// half as many of its requests failed.
//
// But the windows before a probe are smoothed over the probes before it,
// and a probe that found a queue lowered the limit: the windows at the
// higher limit still weigh in that mean, and a probe from the lower one
// reads a fall that is theirs (at a capacity of 2, from a limit of 2 to 1,
// a fall to half, and the limit fell to 1). So a fall counts only if the
// windows since the last probe that found a queue, smoothed alike, show it
// too: the probe's mean below sinceQueued times theirs, or, for failures,
// more than probeFailed of their requests failing and fewer than half as
// many of the probe's. Theirs is the looser bound, since they may be the
// first few windows at the lower limit.
const (
	probeQueued = 0.6
	sinceQueued = 0.75
	probeMedian = 3
	probeFailed = 0.05
)

// The work's time varies widely when its spread at the low end, the range
// of the fastest requests' latencies over the least, is more than
// wideSpread. The fastest of n requests exceeds the least by about that
// range over n+1, so each probe that finds no queue estimates it as its
// fastest latency over the lowest seen before it, less one, times its
// requests plus one; the estimates are smoothed from 0, each weighing
// wideSmoothing. Work whose time varies by ±20% has a spread of a half;
// work with a slow tail but no faster requests than the usual, none; by
// ±50%, 2; exponential work, a spread without bound. A probe whose fastest
// chanced near the least adds little (about one in five of ±50% work's
// adds less than a quarter of its usual 2), and three such in a row take
// the spread of 1.5 that two probes of that work leave below a quarter: so
// the work varies widely no more only below narrowSpread.
const (
	wideSpread    = 1
	narrowSpread  = 0.1 // below it, work that varied widely varies no more
	wideSmoothing = 0.5
	maxSpread     = 4    // the most one probe adds
	spreadQueued  = 0.75 // a probe whose mean fell more than this with the limit may have queued
	stepRise      = 1.25 // a probe whose mean rose more than this over the no-load mean saw a latency step
)

// Where the work varies widely, a limit that sank below sankShare of the
// limit the last probe that saw neither a queue nor a rise left calls the
// next probe soon: a latency step that load did not cause reads as a
// queue in every window's mean, and the limit sinks towards its floor
// within a second, where a probe holds a request or two and waits seconds
// for its samples. So that probe holds half the limit left before the
// sinking, not half the sunk one (and, as every probe of such work,
// samples every request: see Limiter.sizeNext): the step shows within a
// second. A capacity that really fell is told as well, and the limit it
// left becomes the one to compare with.
//
// But where the limit sank for a queue, not a step, half the limit left
// before the sinking may be no lower than the sunk limit (a start far
// above a small capacity sinks only part of the way, as a trace of
// limitsim's TestSeeds with a long deadline showed): such a probe reads the queue the windows
// before it read, no fall, and its mean, at most a queue's, became the
// no-load mean, which held the limit there for many seconds. So its mean counts only if it rose more than
// stepRise over the no-load mean, as a step's does; otherwise it says
// nothing, and the next probe, from the limit in force, follows as soon
// as after one that found a queue.
const sankShare = 0.5

// Gradient's rule on the mean settles where the no-load mean's error times
// the limit equals its queue allowance, which stops growing with the limit
// from gradientQueueSize/gradientQueueShare (20) on: there a no-load mean
// a tenth low holds the limit near 20, whatever the capacity. Probes of
// work that varies widely read it a few percent low, and a latency step
// of less than stepRise, which
// the median of probes cannot tell from chance, leaves the pool at the old
// level for many probes: at a capacity of 32 either sinks the limit for
// the rest of a run. But at a limit the error sank, the backend holds no
// queue, so the windows' mean there is the no-load mean, of far more
// requests than a probe's. So where the limit sank below sunkShare of one
// the backend coped with (Limiter.sunk; of at least sunkLeast, below), the
// next probe comes soon and holds half that limit, and if its mean reads
// within sunkAgree of the windows' mean before it, while that is more than
// sunkLow times the no-load mean, neither held a queue: the windows' mean,
// pooled with the probe's, becomes the no-load mean, and the pool of the
// old level is emptied (relearn). A probe whose mean rose more than
// sunkAgree over the windows' found a queue at the higher limit: the
// backend's capacity fell, and the sunk limit is the one to compare with.
// The mean of any other such probe does not count, since it ran at a limit
// above the one in force, unless it rose more than stepRise over the
// no-load mean, as a latency step's does.
//
// Below 20 the allowance is a tenth of the limit, which
// balances no error of the no-load mean above a tenth, so a step of ×1.15
// that the probes' median misses sinks the limit towards its floor there
// too (exponential work at a capacity of 8, in limitsim's TestSeeds). So a
// limit of at least sunkLeast counts as well, and a limit the backend
// coped with is also one that came down from the starting limit to
// 1/grownShare of it or less and held there through a quiet probe. Not
// below sunkLeast: the limits of 3 to 5 that capacities of 2 and 3 hold
// are balanced by the small-size hold and probes of their own (see
// Limiter.probeLimit), and a probe from half of them holds a request or
// two.
const (
	sunkLeast  = 6
	sunkShare  = 2.0 / 3
	sunkAgree  = 0.15
	sunkLow    = 1.05
	grownShare = 1.25 // the least growth over the starting limit that tells a limit the backend coped with
)

// A probe whose mean rose more than stepRise over the no-load mean may have
// seen a latency step that load did not cause: the next probe follows soon
// to confirm it, as if fewer than probeMedian had counted, so that the
// median follows a step within a few probes' time, not a few periods'.
// Once the median rises so, the windows since the step were read against
// a baseline too low, and the limit they shrank is given back: the
// Limiter restores the limit it held at the last probe that saw no rise.
// Likewise, until a probe tells that the work varies widely, an algorithm
// reads each window's fastest request, which such work puts far above the
// least seen by chance alone, and the limit sinks; the probes then learn
// the no-load mean at half a limit of a few requests, from few samples,
// and one read a tenth low holds the limit near 0.75 of a request over a
// tenth, whatever the capacity, for the seconds the pool takes. So the
// probe that tells the work wide, if the limit sank below sankShare of the
// last quiet probe's, gives back part of what sank, to an algorithm that
// reads the mean (Gradient): the limit becomes the geometric mean of the
// two, not the quiet probe's whole, which may have been the starting limit
// far above a capacity of a few, where the next probe finds a queue and
// halves it below the capacity.

// Work whose time varied widely varies no more once the latencies'
// squared coefficient of variation falls below narrowCV2 in narrowWindows
// windows in a row, each of at least minSamples successes: ±20% work has
// about 0.013, ±50% 0.083, exponential 1, and a window of ±50% work falls
// that far below its spread about once in three hundred. The windows tell
// it at once, where the probes, spaced widely for such work, would take
// many seconds: time in which the lowest latency seen, that of the wide
// work, makes the work of today read as queued.
const (
	narrowCV2     = 0.02
	narrowWindows = 2
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
	rtt         time.Duration          // the no-load latency; 0 until a window succeeds
	mean        time.Duration          // the no-load mean; 0 until a probe succeeds
	means       [probeMedian]probeMean // the last probes that counted, oldest first
	pool        meanPool               // the last probes of the no-load mean's level run while isWide (see poolProbes)
	wideProbe   bool                   // the last probe started while isWide
	counted     int                    // of means
	spread      float64                // the work's spread at its low end, smoothed over probes from 0
	spreadKnown bool                   // a probe has estimated spread
	isWide      bool                   // see wide
	ended       int64                  // Limiter.now() when the last probe ended, or rtt was first learnt
	started     int64                  // Limiter.now() when the last probe started
	length      int64                  // how long the last probe lasted
	before      time.Duration          // recent when the probe started
	sinceQueue  decayed                // as recent, of the windows since the last probe that found a queue
	beforeQueue time.Duration          // sinceQueue's mean when the probe started; 0 if none
	queueFail   float64                // sinceQueue's share of failures when the probe started; -1 if none
	recent      decayed                // the last windows outside probes
	beforeFail  float64                // the share of the requests that failed when the probe started
	probing     int                    // windows of the probe left, 0 if none runs
	soon        bool                   // the next probe comes soon
	queued      bool                   // the last probe found a queue
	rose        bool                   // the last probe's mean rose as a latency step raises it
	stepped     bool                   // the last probe raised the no-load mean so
	turned      bool                   // the last probe told that the work varies widely
	fromSunk    bool                   // the last probe held half the limit the limit sank from (see sunkLeast)
	fromSank    bool                   // the last probe held half the limit the limit sank from (see sankShare), and not as fromSunk
	void        bool                   // the last probe, from the limit before the sinking, saw no step (see sankShare)
	above       bool                   // the last probe, from the limit before the sinking, found a queue there
	beforeN     float64                // the samples behind before, each window's weighing half the next's
}

// wide reports whether the work's time varies widely: then the window's
// mean latency, against the no-load mean, is the signal, not its fastest.
func (n *noLoad) wide() bool { return n.isWide }

// learn adds a window's fastest and mean latency, 0 if none succeeded, and
// how many samples it held,
// reports whether rtt changed and whether the window was part of a probe,
// whose windows the algorithm must not see.
func (n *noLoad) learn(fastest, mean time.Duration, samples, ended, failed int64) (changed, probe bool) {
	old := n.rtt
	switch {
	case n.probing > 0:
		probe = true
		if n.probing--; n.probing == 0 && fastest > 0 {
			rise := n.rise(fastest, mean)
			if n.learnMean(mean, samples, float64(failed)/float64(ended)); !n.queued && float64(mean) >= spreadQueued*float64(n.before) {
				n.learnSpread(rise, samples)
			}
			n.rtt = fastest
		}
	case fastest > 0 && (n.rtt == 0 || fastest < n.rtt):
		n.rtt = fastest
	}
	if !probe {
		n.recent.add(mean, samples, ended, failed)
		n.sinceQueue.add(mean, samples, ended, failed)
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
	case n.spread > wideSpread && !n.isWide:
		n.isWide, n.turned = true, true
		n.keepLast()
	case n.spread < narrowSpread:
		n.isWide = false
	}
}

// keepLast keeps of the probes' means only the last: those before it ran
// at half the limit rounded up, as where the work varies little, which
// over a capacity of a few requests holds a queue (at a limit of 5 over 2,
// 3), and so read a no-load mean too high, which would hold the limit a
// request too high until later probes outvote them. The next probe
// follows soon. The pool, of probes run while the work was known to vary
// widely, stays if the last probe is of its level.
func (n *noLoad) keepLast() {
	if n.counted == 0 {
		return
	}
	last := n.means[n.counted-1]
	n.means[0], n.counted, n.soon = last, 1, true
	if pooled := n.pool.mean(); pooled > 0 && within(last.mean, pooled) {
		n.mean = pooled
		return
	}
	n.mean = last.mean
	n.pool.reset()
}

// narrowed records that the work's time no longer varies widely, if it
// did, as the latencies' spread over the last windows tells, and reports
// whether the no-load latency changed: it is raised to fastest, the
// fastest latency of the last window, since the lowest seen while the work
// varied widely is lower than any the work now takes, and the next probe
// measures its rise from it.
func (n *noLoad) narrowed(fastest time.Duration) bool {
	if !n.isWide {
		return false
	}
	n.isWide, n.spread = false, 0
	if fastest > n.rtt {
		n.rtt = fastest
		return true
	}
	return false
}

// learnMean adds the mean latency of a probe's measuring window, which
// held samples successes and in which the share failed of the requests
// failed.
func (n *noLoad) learnMean(mean time.Duration, samples int64, failed float64) {
	n.queued = n.fell(mean) || n.failedLess(failed)
	n.rose, n.stepped, n.turned, n.above, n.void = false, false, false, false, false
	if n.queued { // a bound: the no-load mean is lower
		if n.mean == 0 || mean < n.mean {
			n.mean, n.counted = mean, 0
			n.pool.reset()
		}
		n.soon = true
		return
	}
	if n.fromSunk && float64(mean) <= stepRise*float64(n.mean) {
		n.learnSunk(mean, samples, failed)
		return
	}
	if n.fromSank && float64(mean) <= stepRise*float64(n.mean) { // no step: it ran at the sunk limit or above
		n.soon, n.void = true, true
		return
	}
	if n.counted == probeMedian {
		copy(n.means[:], n.means[1:])
		n.counted--
	}
	old := n.mean // a median or the pool's mean, or a bound if none counted since a queue
	median := n.counted > 0
	n.rose = median && float64(mean) > stepRise*float64(old)
	n.means[n.counted] = probeMean{mean, samples}
	n.counted++
	n.soon = n.counted < probeMedian || n.rose && float64(n.before) > stepRise*float64(old)
	sorted := n.means
	slices.SortFunc(sorted[:n.counted], func(a, b probeMean) int { return cmp.Compare(a.mean, b.mean) })
	mid := sorted[(n.counted-1)/2].mean // of two, the lower
	n.stepped = median && float64(mid) > stepRise*float64(old)
	if n.wideProbe {
		n.pool.learn(n.means[:n.counted], mid, !median || within(mean, old), !median || within(mid, old))
	}
	n.mean = cmp.Or(n.pool.mean(), mid)
}

// fell reports whether a probe's mean latency, mean, fell from the
// windows' before it as a probe that ran into a queue does: below
// probeQueued times their mean, and below sinceQueued times that of the
// windows since the last probe that found a queue, if any.
func (n *noLoad) fell(mean time.Duration) bool {
	return float64(mean) < probeQueued*float64(n.before) &&
		(n.beforeQueue == 0 || float64(mean) < sinceQueued*float64(n.beforeQueue))
}

// failedLess reports whether a probe in which the share failed of the
// requests failed failed fewer than half as many as the windows before it,
// of which more than probeFailed failed, and as the windows since the last
// probe that found a queue, if any.
func (n *noLoad) failedLess(failed float64) bool {
	return n.beforeFail > probeFailed && failed < n.beforeFail/2 &&
		(n.queueFail < 0 || n.queueFail > probeFailed && failed < n.queueFail/2)
}

// coped reports whether the windows before the last probe read a mean
// within stepRise of the no-load mean.
func (n *noLoad) coped() bool {
	return n.mean > 0 && float64(n.before) <= stepRise*float64(n.mean)
}

// learnSunk adds the mean latency of the measuring window of a probe from
// the limit the limit sank from (see sunkLeast), which held samples
// successes and in which the share failed of the requests failed.
func (n *noLoad) learnSunk(mean time.Duration, samples int64, failed float64) {
	agrees := math.Abs(float64(mean)/float64(n.before)-1) <= sunkAgree
	if agrees && n.beforeN > 0 && failed <= probeFailed && float64(n.before) > sunkLow*float64(n.mean) {
		n.relearn(mean, samples)
		return
	}
	n.above = float64(mean) > (1+sunkAgree)*float64(n.before)
}

// relearn takes as the no-load mean the mean of the windows before the
// probe pooled with the probe's mean, of samples successes, and empties
// the pool of the old level.
func (n *noLoad) relearn(mean time.Duration, samples int64) {
	w := float64(samples) + n.beforeN
	p := probeMean{time.Duration((float64(mean)*float64(samples) + float64(n.before)*n.beforeN) / w), int64(w)}
	n.pool.reset()
	n.means[0], n.counted = p, 1
	n.mean, n.soon = p.mean, true
	if n.wideProbe {
		n.pool.add(p)
	}
}

// probeDue reports whether the window that closes at now, when the
// shortest window is winLen, is the last before a probe, and starts the
// probe if so; sank reports whether the limit sank below sankShare of the
// one the last probe that saw neither a queue nor a rise left, and sunk
// whether it sank as Limiter.sunk says.
func (n *noLoad) probeDue(now, winLen int64, sank, sunk bool) bool {
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
		switch {
		case n.queued || n.void: // the limit is twice the capacity or more, or was not halved
			period = max(probeSoon*winLen, n.length)
		case n.soon || n.mean == 0 || sank || sunk:
			period = max(probeSoon*winLen, probeSoonSpacing*n.length)
		}
	}
	if now-n.ended < period {
		return false
	}
	n.probing, n.started, n.wideProbe, n.fromSunk, n.fromSank = probeWindows, now, n.isWide, sunk, sank && !sunk
	if n.recent.successes > 0 {
		n.before, n.beforeN = n.recent.mean(), n.recent.successes
	}
	if n.recent.ends > 0 {
		n.beforeFail = n.recent.failShare()
	}
	n.beforeQueue, n.queueFail = n.sinceQueue.mean(), -1
	if n.sinceQueue.ends > 0 {
		n.queueFail = n.sinceQueue.failShare()
	}
	return true
}

// probeEnded records that the probe ended at now.
func (n *noLoad) probeEnded(now int64) {
	n.ended, n.length = now, now-n.started
	if n.queued {
		n.sinceQueue = decayed{}
	}
}

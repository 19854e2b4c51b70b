package adaptive

import "math"

// An Algorithm proposes the next limit from the window that just closed.
// The Limiter calls Next from one goroutine at a time, so an Algorithm may
// keep state without locking; it then belongs to one Limiter. The Limiter
// applies smoothing and bounds to what Next returns.
type Algorithm interface {
	Next(w Window) float64
}

// appLimited reports whether the callers, not the limit, held concurrency
// down during w: the most permits held stayed more than a tenth of the
// limit, and at least one request, below it, and no request was refused
// (a refusal raises w.InFlight to the limit). Then no signal says the limit
// could be higher, and a limit grown unused is a burst let in whole later:
// TCP's congestion window validation (RFC 7661) grows only a window in use.
// Nor does the window's latency say the limit is too high, since the
// callers' few requests made it: no algorithm moves the limit on the
// latency of such a window, so that jitter, which could only shrink it,
// does not sink it while it cannot grow back. Netflix's limiters test for
// half the limit, which lets a limit that a load of 0.6 of the capacity
// fills only at its peaks climb to twice it.
func appLimited(w Window) bool {
	return float64(w.InFlight) < w.Limit-max(1, appLimitedSlack*w.Limit)
}

// The algorithms' defaults, taken by the fields left zero. design.go says
// why each is what it is; the docs' adaptive page quotes this block.
const (
	appLimitedSlack = 0.1 // the share of the limit left unused that makes a window app-limited

	aimdIncrease     = 1     // added per window without congestion
	aimdGrowth       = 0.075 // the most added per window, as a fraction of the limit
	aimdLeastQueue   = 0.6   // the least queue, in requests, that counts as congestion
	aimdBackoff      = 0.9   // multiplies the limit on congestion
	aimdLeastBackoff = 0.5   // the least taken off on congestion, in requests
	aimdTolerance    = 1.1   // the fastest request's latency over the no-load latency that is congestion

	vegasAlpha     = 0.05 // the least queue, as a fraction of the limit
	vegasBeta      = 0.1  // the most queue, as a fraction of the limit
	vegasLeastBeta = 0.75 // the most queue is at least this many requests

	gradientTolerance      = 1    // the window's latency over the long-term average that shrinks the limit
	gradientQueueSize      = 2    // the growth per window while latency holds
	gradientQueueShare     = 0.1  // the most growth per window, as a fraction of the limit
	gradientLeastQueue     = 0.5  // the least growth per window, in requests
	gradientLeastMeanQueue = 0.75 // the least growth per window, in requests, when the window's mean is read
	gradientMeanBand       = 0.35 // when the window's mean is read, a queue this close to the allowance holds the size
	gradientHeadroom       = 1.02 // the most the average may be over the no-load latency
	gradientSmoothing      = 0.2  // the fraction of the way to each new estimate
	gradientMaxWeight      = 5    // the most windows' worth of smoothing one long window takes
	gradientLongWindows    = 600  // the span of the long-term average, in windows; the first gradientWarmup are averaged plainly
	gradientWarmup         = 10   // windows averaged plainly before the average decays
	gradientDropRate       = 0.1  // the share of sampled requests failed that is congestion
	gradientBackoff        = 0.9  // multiplies the limit on congestion
)

// or returns v, or def when v is zero (a field left unset).
func or(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// AIMD grows the limit by a constant while requests succeed quickly and
// multiplies it by a factor below one when one fails or the window's fastest
// request was slower than Tolerance times the no-load latency: TCP's
// additive increase, multiplicative decrease. A window that the callers
// held below the limit moves it only on a failure. At small limits it grows
// by at most 0.075 of the limit, backs off by at least half a request, and
// counts as congestion only a queue of at least 0.6 of a request (the
// fastest request's latency over the no-load latency, times the limit), so
// that at a capacity of 2 a limit of 3, one request queued, is where it
// turns. Its limit is a sawtooth, so there it spends part of the time at
// 2, where random arrivals leave the backend idle between requests, and a
// little at 4, which breaks the p99 goal while it lasts:
// docs/adaptive/results.md measures it meeting the goodput and p99 goals
// there in both modes, each by a thin margin, which a small change of its
// constants or of the probes' timing can tip. Choose Vegas or Gradient
// for a capacity of a few requests. Like every algorithm, it cannot meet
// the goal of goodput as high as failsafe-go's defaults at the small
// capacities, by design: at 2 the largest fixed size that meets the p99
// goal only about matches the peer, and an adaptive limit must spend some
// time below it; at 8 no fixed size within a quarter of the capacity
// matches it (results.md measures both). It reads the window's fastest
// request, which work whose time on an idle backend varies widely (as an
// exponential distribution's, a heavy tail's, or by ±50%) makes a signal
// of nothing: a
// window's fastest is above the fastest ever seen by chance alone, reads
// as a queue that is not there, and the limit sinks far below the
// capacity, as results.md measures. Choose Gradient for such work. The
// zero value is ready to use.
type AIMD struct {
	// Increase is added per window without congestion, at most 0.075 of
	// the limit; default 1.
	Increase float64
	// Backoff multiplies the limit on congestion; default 0.9.
	Backoff float64
	// Tolerance is how much slower than the no-load latency the window's
	// fastest request may be before it counts as congestion; default 1.1.
	// The limit peaks where the backend's queue makes requests that much
	// slower, so the tolerance is about how far above the capacity the
	// limit rises before each backoff.
	Tolerance float64
}

// Next implements [Algorithm].
func (a *AIMD) Next(w Window) float64 {
	tolerance := max(or(a.Tolerance, aimdTolerance), 1+aimdLeastQueue/w.Limit)
	slow := float64(w.MinRTT) > tolerance*float64(w.NoLoadRTT)
	switch {
	case w.Drops > 0 || w.MinRTT == 0:
		return a.backoff(w)
	case appLimited(w): // the callers, not the limit, made this latency
		return w.Limit
	case slow:
		return a.backoff(w)
	}
	return w.Limit + min(or(a.Increase, aimdIncrease), aimdGrowth*w.Limit)
}

// backoff returns the limit after congestion in w.
func (a *AIMD) backoff(w Window) float64 {
	return min(w.Limit*or(a.Backoff, aimdBackoff), w.Limit-aimdLeastBackoff)
}

// Vegas estimates how many requests wait inside the backend, from how much
// slower the window's fastest request was than the no-load latency
// (limit × (1 − noLoad/min)), and keeps that queue between Alpha and Beta
// times the limit: TCP Vegas's rule, with bounds that scale with the limit.
// Beta is at least 0.75 of a request, as TCP Vegas bounds its queue in
// whole packets: at a capacity of 2, a limit of 3 reads as about 0.6 of a
// request queued (the fastest request runs part of its time beside fewer)
// and one of 4 as more than one, so with work that varies little it holds
// 3, the best fixed size there on a backend that shares itself among its
// requests (not on servers behind a queue: see the package doc).
// A window that the callers held below the limit moves it only on a
// failure. The no-load latency is the Limiter's, probed anew every hundred
// windows' time (see [Window]). Like every algorithm, it cannot meet the
// goal of goodput as high as failsafe-go's defaults at the small
// capacities, by design: at 2 the largest fixed size that meets the p99
// goal only about matches the peer, and at 8 no fixed size within a
// quarter of the capacity matches it, as docs/adaptive/results.md
// measures. Like AIMD it reads the window's fastest request, which work
// whose time on an idle backend varies widely (exponential, heavy-tailed,
// or ±50%) makes a signal of nothing, and its limit sinks far below the capacity there,
// as results.md measures: choose Gradient for such work. The zero value is
// ready to use.
type Vegas struct {
	// Alpha and Beta bound the queue, as fractions of the limit; defaults
	// 0.05 and 0.1. Beta is at least 0.75 of a request.
	Alpha, Beta float64
}

// Next implements [Algorithm].
func (v *Vegas) Next(w Window) float64 {
	alpha := or(v.Alpha, vegasAlpha) * w.Limit
	beta := max(vegasLeastBeta, or(v.Beta, vegasBeta)*w.Limit)
	if w.MinRTT == 0 || w.Drops > 0 {
		return w.Limit - beta
	}
	if appLimited(w) { // the callers, not the limit, made this latency
		return w.Limit
	}
	queue := w.Limit * (1 - float64(w.NoLoadRTT)/float64(w.MinRTT))
	switch {
	case queue > beta:
		return w.Limit - (queue - beta)
	case queue < alpha:
		return w.Limit + alpha
	}
	return w.Limit
}

// Gradient is Netflix's Gradient2: it compares a long-term average of the
// latency, which stands for the latency the backend has when it copes,
// with the latency of the last window. Their ratio, times Tolerance and
// clamped to [0.5, 1], scales the limit, and QueueSize is added, so the
// limit grows by QueueSize while the window is no slower than the average
// and shrinks in proportion when it is. The result is smoothed. The queue
// added is a tenth of the limit, at least half a request and at most
// QueueSize: a capacity of a few requests then keeps about one request
// queued, as the best fixed size does there on a backend that shares
// itself among its requests (at a capacity of 2 the limit holds 3; on
// servers behind a queue, where a queued request waits a whole service
// time, that breaks the p99 goal: see the package doc), and not a queue as
// large as itself. The average is kept
// between the no-load latency and 1.02 times it, unless Mean is set: under
// sustained overload an average left to itself follows the latency up and
// the limit climbs with it; a backend whose latency drifts on its own moves
// the no-load latency, which the Limiter probes every hundred windows' time, and the
// average with it. Of the three it is the one that meets every goal of
// docs/adaptive/results.md that any algorithm meets, with the most room at
// a capacity of 2: choose it by default. It cannot meet the goal of
// goodput as high as failsafe-go's defaults at the small capacities, by
// design: at 2 the largest fixed size that meets the p99 goal only about
// matches the peer, and at 8 no fixed size within a quarter of the
// capacity matches it; results.md measures both. The window's latency is
// its fastest request's, unless Mean is set or the work varies widely (see
// below). A window in which more than a tenth of the sampled
// requests failed multiplies the limit by 0.9, whatever the latency: a
// backend that fails fast when full answers its failures faster than its
// work, and would otherwise let the limit climb while half the requests
// fail. Where the work's time on an idle backend varies widely
// (exponential, heavy-tailed, or ±50%: the Limiter's probes tell, and then
// give the no-load mean in [Window].NoLoadMeanRTT), the fastest of a window is
// above the fastest ever seen by chance alone and would read as a queue
// that is not there; so it reads the window's mean against the no-load
// mean instead, with a queue allowance of at least 0.75 of a request,
// since the mean reads a queued request whole where the fastest reads
// about 0.6 of one, and a window that waited for k times the usual
// samples, to make its mean precise, moves the limit as k windows would
// (up to 5). Where that allowance of 0.75 is the one in force (a limit
// below 7.5), a queue read within 0.35 of a request of it holds the size
// the limit rounds to: at a capacity of 2 the balance of the gradient alone
// lies near 3.5, the edge between sizes of 3 and 4, and a no-load mean read
// a few percent high tips it to 4, where the p99 goal breaks; sizes of 2, 3
// and 4 read queues far enough apart for the band to tell them. There it
// meets the goodput and p99 goals in both modes, as
// results.md measures, also after a latency step, which the Limiter's
// probes learn within a few seconds. Its limit strays more than a quarter
// above a capacity of 8 with exponential work at times; but there the
// fixed sizes from a quarter to a half over the capacity serve the most,
// so the capacity is not the ideal limit (results.md sweeps them). The
// zero value is ready to use.
type Gradient struct {
	// Tolerance is how much slower than the long-term average a window may
	// be before the limit shrinks; default 1.
	Tolerance float64
	// QueueSize is the growth per window while latency holds, and so about
	// the queue the limit keeps in the backend; default 2. The growth is a
	// tenth of the limit, at least half a request, at most QueueSize.
	QueueSize float64
	// Smoothing moves the limit this fraction of the way to each new
	// estimate; default 0.2.
	Smoothing float64
	// Mean makes the window's mean latency, not its lowest, the latency
	// compared with the average, as in Gradient2's default window. A slow
	// tail moves the mean from window to window and holds the limit low.
	Mean bool

	long   float64 // the long-term average latency, in nanoseconds
	warmed int     // windows in long, up to gradientWarmup
}

// Next implements [Algorithm].
func (g *Gradient) Next(w Window) float64 {
	if w.DropRate > gradientDropRate { // a backend that fails fast is not faster
		return w.Limit * gradientBackoff
	}
	if w.MinRTT == 0 { // no success, no latency to learn from
		return w.Limit
	}
	short, noLoad := float64(w.MinRTT), float64(w.NoLoadRTT)
	switch {
	case g.Mean:
		short, noLoad = float64(w.MeanRTT), 0
	case w.NoLoadMeanRTT > 0:
		short, noLoad = float64(w.MeanRTT), float64(w.NoLoadMeanRTT)
	}
	g.average(short)
	if g.long > 2*short { // the backend recovered: forget the slow past faster
		g.long *= 0.9
	}
	if noLoad > 0 {
		g.long = min(max(g.long, noLoad), gradientHeadroom*noLoad)
	}
	if appLimited(w) {
		return w.Limit
	}
	gradient := min(max(or(g.Tolerance, gradientTolerance)*g.long/short, 0.5), 1)
	least := gradientLeastQueue
	if w.NoLoadMeanRTT > 0 && !g.Mean { // the mean reads a queued request whole
		least = gradientLeastMeanQueue
	}
	queue := min(or(g.QueueSize, gradientQueueSize), max(gradientQueueShare*w.Limit, least))
	next := w.Limit*gradient + queue
	if size := math.Round(w.Limit); queue == gradientLeastMeanQueue && math.Abs(size*(1-gradient)-queue) < gradientMeanBand {
		next = size // the queue is near the allowance: hold the size
	}
	return w.Limit + g.smoothing(w)*(next-w.Limit)
}

// readsMean reports whether g reads a window's mean against the no-load
// mean where the work varies widely (see Limiter.closeWindow).
func (g *Gradient) readsMean() bool { return !g.Mean }

// smoothing returns the fraction of the way to the new estimate that w
// moves the limit: Smoothing for a window of up to targetSamples samples;
// a window of k times as many, which work whose time varies widely needs
// for a precise mean, moves it as k windows would, up to
// gradientMaxWeight.
func (g *Gradient) smoothing(w Window) float64 {
	k := 1.0
	if w.NoLoadMeanRTT > 0 {
		k = min(max(1, float64(w.Samples-w.Drops)/targetSamples), gradientMaxWeight)
	}
	return 1 - math.Pow(1-or(g.Smoothing, gradientSmoothing), k)
}

// average adds one window's latency to the long-term average.
func (g *Gradient) average(short float64) {
	if g.warmed < gradientWarmup {
		g.warmed++
		g.long += (short - g.long) / float64(g.warmed)
		return
	}
	g.long += (short - g.long) * 2 / (gradientLongWindows + 1)
}

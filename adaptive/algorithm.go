package adaptive

// An Algorithm proposes the next limit from the window that just closed.
// The Limiter calls Next from one goroutine at a time, so an Algorithm may
// keep state without locking; it then belongs to one Limiter. The Limiter
// applies smoothing and bounds to what Next returns.
type Algorithm interface {
	Next(w Window) float64
}

// appLimited reports whether the callers, not the limit, held concurrency
// down during w: then no signal says the limit could be higher.
func appLimited(w Window) bool { return float64(w.InFlight)*2 < w.Limit }

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
// additive increase, multiplicative decrease. The zero value is ready to
// use.
type AIMD struct {
	// Increase is added per window without congestion; default 1.
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
	slow := float64(w.MinRTT) > or(a.Tolerance, 1.1)*float64(w.NoLoadRTT)
	switch {
	case w.Drops > 0 || slow || w.MinRTT == 0:
		return w.Limit * or(a.Backoff, 0.9)
	case appLimited(w):
		return w.Limit
	}
	return w.Limit + or(a.Increase, 1)
}

// Vegas estimates how many requests wait inside the backend, from how much
// slower the window's fastest request was than the no-load latency
// (limit × (1 − noLoad/min)), and keeps that queue between Alpha and Beta
// times the limit: TCP Vegas's rule, with bounds that scale with the limit.
// The zero value is ready to use.
type Vegas struct {
	// Alpha and Beta bound the queue, as fractions of the limit; defaults
	// 0.05 and 0.1. The bounds are at least 1 and 2 requests.
	Alpha, Beta float64
}

// Next implements [Algorithm].
func (v *Vegas) Next(w Window) float64 {
	alpha := max(1, or(v.Alpha, 0.05)*w.Limit)
	beta := max(2, or(v.Beta, 0.1)*w.Limit)
	if w.MinRTT == 0 || w.Drops > 0 {
		return w.Limit - beta
	}
	queue := w.Limit * (1 - float64(w.NoLoadRTT)/float64(w.MinRTT))
	switch {
	case queue > beta:
		return w.Limit - (queue - beta)
	case queue < alpha && !appLimited(w):
		return w.Limit + alpha
	}
	return w.Limit
}

// Gradient is Netflix's Gradient2: it compares a long-term average of the
// latency, which stands for the latency the backend has when it copes,
// with the mean latency of the last window. Their ratio, times Tolerance
// and clamped to [0.5, 1], scales the limit, and QueueSize is added, so the
// limit grows by QueueSize while the window is no slower than the average
// and shrinks in proportion when it is. The result is smoothed. It needs no
// no-load latency, so it follows a backend whose latency drifts on its own.
// The zero value is ready to use.
type Gradient struct {
	// Tolerance is how much slower than the long-term average a window may
	// be before the limit shrinks; default 1.
	Tolerance float64
	// QueueSize is the growth per window while latency holds; default 4.
	QueueSize float64
	// Smoothing moves the limit this fraction of the way to each new
	// estimate; default 0.2.
	Smoothing float64
	// LongWindows is the span, in windows, of the long-term exponential
	// average; default 600. The first ten windows are averaged plainly.
	LongWindows float64

	long   float64 // the long-term average latency, in nanoseconds
	warmed int     // windows in long, up to gradientWarmup
}

// gradientWarmup is the number of windows the long-term average takes as
// a plain mean before it starts to decay.
const gradientWarmup = 10

// Next implements [Algorithm].
func (g *Gradient) Next(w Window) float64 {
	if w.MeanRTT == 0 { // no latency to learn from
		return w.Limit
	}
	short := float64(w.MeanRTT)
	g.average(short)
	if g.long > 2*short { // the backend recovered: forget the slow past faster
		g.long *= 0.9
	}
	if appLimited(w) {
		return w.Limit
	}
	gradient := min(max(or(g.Tolerance, 1)*g.long/short, 0.5), 1)
	next := w.Limit*gradient + or(g.QueueSize, 4)
	return w.Limit + or(g.Smoothing, 0.2)*(next-w.Limit)
}

// average adds one window's latency to the long-term average.
func (g *Gradient) average(short float64) {
	if g.warmed < gradientWarmup {
		g.warmed++
		g.long += (short - g.long) / float64(g.warmed)
		return
	}
	g.long += (short - g.long) * 2 / (or(g.LongWindows, 600) + 1)
}

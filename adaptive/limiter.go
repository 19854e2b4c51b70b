package adaptive

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/check"
)

const pkg check.Pkg = "adaptive"

// Resizable is a semaphore whose size can change while it is in use and
// that tells how many permits are free: what a [Limiter] wraps. weighted,
// spinsem and condsem semaphores are Resizable.
type Resizable interface {
	sem.Semaphore
	sem.Resizer
	Available() int64
}

// cacheLine pads what every request reads apart from what sampled ones
// write.
type cacheLine [64]byte

// A Limiter is a concurrency limit that moves the size of the semaphore it
// wraps from the latencies and outcomes that [Token] reports. It is a
// [sem.Semaphore] itself: permits taken with Acquire or TryAcquire count
// against the limit like any other but report no latency, so only requests
// started with Start or TryStart teach it anything.
//
// A Limiter is safe for concurrent use. It starts no goroutine: the limit
// moves inside Token.Done and Token.Report, when a window of samples closes.
type Limiter struct {
	s      Resizable
	alg    Algorithm
	epoch  time.Time // now() is the time since epoch
	size   atomic.Int64
	winLen atomic.Int64  // the shortest window, in nanoseconds
	winMin atomic.Int64  // the next window's least length: winLen, or longer to drain a probe
	need   atomic.Int64  // the samples a window waits for, at least minSamples
	winMax atomic.Int64  // the longest a window waits for need, in nanoseconds
	sample atomic.Uint64 // a start is sampled when a random draw & sample is 0
	rand   rand.Source   // the draws; nil for math/rand/v2's

	_   cacheLine
	win window

	queued  atomic.Int64 // permits asked for by Starts that wait
	refused atomic.Int64 // requests TryStart or Start refused
	meanRTT atomic.Int64 // the last window's mean latency, in nanoseconds
	budget  atomic.Int64 // the longest wait in Start, in nanoseconds; -1 until known

	closing    sync.Mutex // taken with TryLock by the goroutine closing a window
	estimate   float64    // the unrounded limit; under closing
	noLoad     noLoad     // under closing
	narrowRun  int        // the last windows in a row whose latencies varied less than narrowCV2; under closing
	probeAt    float64    // the limit the last probe held; under closing
	settled    float64    // the estimate when the last probe that found neither a queue nor a step ended; under closing
	coped      bool       // settled is one the backend coped with (see sunk); under closing
	initial    float64    // the limit New set
	spread     float64    // the latencies' squared CV, smoothed over windows; under closing
	min, max   float64
	smooth     float64
	maxWait    time.Duration        // WithMaxWait's; -1 for the default
	classShare float64              // WithClassShare's
	onChange   func(old, new int64) // WithOnLimitChange's; nil if none
}

// An Option adjusts a [Limiter] made by [New].
type Option func(*Limiter)

// WithBounds keeps the limit within [min, max]. The default is [1, 1<<20].
// New panics if min < 1 or max < min.
func WithBounds(min, max int64) Option {
	if min < 1 || max < min {
		panic(fmt.Sprintf("%s: WithBounds(%d, %d): want 1 <= min <= max", pkg, min, max))
	}
	return func(l *Limiter) { l.min, l.max = float64(min), float64(max) }
}

// WithSmoothing moves the limit only part of the way to each new value that
// the algorithm proposes: by the fraction f, in (0, 1]. The default, 1,
// takes each proposal whole; smaller values trade reaction time for a
// steadier limit. New panics if f is outside (0, 1].
func WithSmoothing(f float64) Option {
	if !(f > 0 && f <= 1) {
		panic(fmt.Sprintf("%s: WithSmoothing(%v): want 0 < f <= 1", pkg, f))
	}
	return func(l *Limiter) { l.smooth = f }
}

// WithOnLimitChange calls f with the old and the new limit each time the
// limit changes, from the goroutine that ended the request which closed the
// window, one call at a time and in order. f must return quickly: requests
// that end meanwhile do not wait for it, but the next change does.
func WithOnLimitChange(f func(old, new int64)) Option {
	return func(l *Limiter) { l.onChange = f }
}

// WithRand draws the requests the Limiter samples from src, in place of
// math/rand/v2's generator, so that a simulation that seeds src samples the
// same requests at every run. src is called by every goroutine that starts
// a request: it must be safe for concurrent use, unless one goroutine
// starts them all, as in a simulation. A nil src keeps the default.
func WithRand(src rand.Source) Option {
	return func(l *Limiter) { l.rand = src }
}

// New returns a Limiter that wraps s, sets its size to initial at once, and
// then moves it as alg proposes. The size s was made with is replaced, not
// kept: the Limiter owns the size from then on, so make s with any size
// (weighted.New(1) will do) and give the starting limit as initial. s must
// not be in use, nor resized by anyone else, and alg must not be shared
// with another Limiter: it keeps state.
//
// New panics if initial is outside the bounds (at least 1 by default), if
// alg is nil, or if permits of s are held, which a limit of its own could
// not account for.
func New(s Resizable, initial int64, alg Algorithm, opts ...Option) *Limiter {
	pkg.PanicIfBadSize("New", initial, check.Unbounded)
	if alg == nil {
		panic(string(pkg) + ": New: nil Algorithm")
	}
	l := &Limiter{s: s, alg: alg, epoch: time.Now(), min: 1, max: 1 << 20, smooth: 1, maxWait: -1,
		classShare: defaultClassShare}
	for _, o := range opts {
		o(l)
	}
	if f := float64(initial); f < l.min || f > l.max {
		panic(fmt.Sprintf("%s: New: initial limit %d outside the bounds [%v, %v]", pkg, initial, l.min, l.max))
	}
	l.estimate, l.initial = float64(initial), float64(initial)
	l.budget.Store(int64(l.maxWait))
	l.size.Store(initial)
	l.win.reset(0)
	l.need.Store(minSamples)
	l.winMax.Store(math.MaxInt64)
	s.Resize(initial)
	if free := s.Available(); free != initial {
		panic(fmt.Sprintf("%s: New: %d of %d permits of the semaphore are held; wrap a semaphore nobody uses", pkg, initial-free, initial))
	}
	return l
}

// Limit reports the size the Limiter last gave the wrapped semaphore. With
// priority classes in use it stands above the backend's capacity by about
// what the lower classes leave free, since the limit grows until the
// requests in flight fill the backend: read InFlight for the backend's
// concurrency.
func (l *Limiter) Limit() int64 { return l.size.Load() }

// InFlight reports the permits held now, through tokens or Acquire.
func (l *Limiter) InFlight() int64 { return max(0, l.size.Load()-l.s.Available()) }

// Queued reports the permits that requests waiting in Start ask for now.
func (l *Limiter) Queued() int64 { return l.queued.Load() }

// Refused reports how many requests TryStart, Start, TryStartClass and
// StartClass have refused since the Limiter was made: a full limit for
// TryStart, too little of it free for TryStartClass, one of
// [ErrLimitExceeded], [ErrQueueTimeout] and [ErrClassRefused] for Start and
// StartClass. Requests whose context ended, or larger than the limit, are
// not counted.
func (l *Limiter) Refused() int64 { return l.refused.Load() }

// Acquire takes n permits from the wrapped semaphore, with its semantics:
// see [sem.Semaphore]. The request reports no latency. A request larger
// than the limit fails with an error wrapping [sem.ErrExceedsSize], also
// while it waits if the limit shrinks below it: keep weights at most the
// lower bound. It panics if n < 0.
func (l *Limiter) Acquire(ctx context.Context, n int64) error {
	pkg.PanicIfNegative("Acquire", n)
	return l.s.Acquire(ctx, n)
}

// TryAcquire takes n permits only if the wrapped semaphore grants them at
// once, and reports whether it did. It panics if n < 0.
func (l *Limiter) TryAcquire(n int64) bool {
	pkg.PanicIfNegative("TryAcquire", n)
	return l.s.TryAcquire(n)
}

// Release returns n permits to the wrapped semaphore. It panics, changing
// nothing, if n < 0 or if that is more than are held.
func (l *Limiter) Release(n int64) {
	pkg.PanicIfNegative("Release", n)
	defer renamePanic()
	l.s.Release(n)
}

// renamePanic lets a panic of the wrapped semaphore go on, naming this
// package too, so that a programmer error names the package it was made
// with.
func renamePanic() {
	if r := recover(); r != nil {
		panic(fmt.Sprintf("%s: %v", pkg, r))
	}
}

// Start admits a request of n permits and returns a Token that measures it
// from now on. Call exactly one of its Done or Report methods when the
// request ends: that gives the permits back.
//
// When the limit is reached, Start waits in a queue, but only while the
// wait pays: it refuses at once with [ErrLimitExceeded] if the permits
// queued ahead of it and its own, at the pace permits come back (the
// limit's permits per mean latency), would keep it waiting longer than the
// longest wait allowed (a quarter of the no-load latency unless
// [WithMaxWait] says otherwise) or than ctx's deadline leaves for the
// request itself, and with [ErrQueueTimeout] if it has waited that long.
// Even with nobody ahead, the first permit back is a mean latency over the
// limit away, so with the default longest wait Start refuses as TryStart
// does at a limit below 4 times the work's mean over its fastest request:
// below about 5 for work within a fifth of its mean either way, and at
// almost any limit for work whose time varies widely (exponential, say),
// whose fastest request is far below its mean. Raise WithMaxWait to wait
// there. A
// request larger than the limit fails first, even with a done ctx, with an
// error wrapping [sem.ErrExceedsSize]; then, if ctx ends first, Start
// returns ctx.Err(). It panics if n < 0.
func (l *Limiter) Start(ctx context.Context, n int64) (Token, error) {
	pkg.PanicIfNegative("Start", n)
	if n > l.size.Load() {
		return Token{}, l.errExceeds("Start", n)
	}
	if err := ctx.Err(); err != nil {
		return Token{}, err
	}
	if l.s.TryAcquire(n) {
		return l.started(n), nil
	}
	return l.wait(ctx, n)
}

// errExceeds returns the error of a request of n permits that method
// refuses because n exceeds the limit: it could never be admitted. Start
// and StartClass look at the size before ctx, as Acquire on the wrapped
// semaphore does.
func (l *Limiter) errExceeds(method string, n int64) error {
	return fmt.Errorf("%s: %s(%d) on a limit of %d: %w", pkg, method, n, l.size.Load(), sem.ErrExceedsSize)
}

// TryStart is Start without waiting: ok is false, and the Token is of no
// use, if the permits were not free at once.
func (l *Limiter) TryStart(n int64) (t Token, ok bool) {
	pkg.PanicIfNegative("TryStart", n)
	if !l.s.TryAcquire(n) {
		l.refuse(n)
		return Token{}, false
	}
	return l.started(n), true
}

// refuse counts a request of n permits refused for want of permits, and
// marks the window as one whose limit, not its callers, held concurrency
// down: a priority class that leaves part of the limit free is refused
// while the permits in use stay below the limit, and its window must not
// look app-limited, or the limit would never grow to serve it. A request
// larger than the limit is neither: no permits would have admitted it.
func (l *Limiter) refuse(n int64) {
	size := l.size.Load()
	if n > size {
		return
	}
	l.refused.Add(1)
	raise(&l.win.maxInFlight, size)
}

// now is the monotonic time since the Limiter was made.
func (l *Limiter) now() int64 { return int64(time.Since(l.epoch)) }

// closeWindow hands the window's samples to the algorithm and resizes the
// semaphore, unless another goroutine is doing so already.
func (l *Limiter) closeWindow(now int64) {
	if !l.closing.TryLock() {
		return
	}
	defer l.closing.Unlock()
	if !l.due(now) { // another goroutine closed it
		return
	}
	w, measured, cv2 := l.win.take(now)
	changed, probe := l.noLoad.learn(w.MinRTT, w.MeanRTT, w.Samples-w.Drops, w.Samples, w.Drops)
	if w.MinRTT > 0 {
		l.meanRTT.Store(int64(w.MeanRTT))
		l.spread += spreadSmoothing * (cv2 - l.spread)
		l.winMax.Store(maxWindowMeans * int64(w.MeanRTT))
		if l.narrowRun++; cv2 >= narrowCV2 || w.Samples-w.Drops < minSamples {
			l.narrowRun = 0
		}
		if l.narrowRun >= narrowWindows && !probe && l.noLoad.narrowed(w.MinRTT) {
			changed = true
		}
	}
	if changed {
		l.winLen.Store(max(int64(windowRTTs*l.noLoad.rtt), int64(minWindow)))
		l.winMin.Store(max(l.winMin.Load(), l.winLen.Load()))
		if l.maxWait < 0 {
			l.budget.Store(int64(l.noLoad.rtt / defaultWaitDivisor))
		}
	}
	defer l.sizeNext(w.MeanRTT, measured, probe)
	switch {
	case probe: // the probe's windows say nothing of the limit
		if l.noLoad.probing == 0 { // the probe ended
			l.noLoad.probeEnded(now)
			switch {
			case l.noLoad.queued && l.noLoad.wide(): // the limit was twice the capacity, or more
				l.estimate = l.probeAt
				l.settled = l.estimate
			case l.noLoad.stepped && l.noLoad.wide(): // the limit shrank for a step, not a queue
				l.estimate = max(l.estimate, l.settled)
			case l.noLoad.turned && l.sank() && readsMean(l.alg): // the limit shrank for the fastest of wide work
				l.estimate = math.Sqrt(l.estimate * l.settled) // part of it: the limit the last quiet probe left may have been far above the capacity
			case l.noLoad.above: // the limit sank for a queue above it, which the probe found
				l.settled, l.coped = l.estimate, false
			case !l.noLoad.queued && !l.noLoad.rose && !l.sunk():
				l.settled, l.coped = l.estimate, l.noLoad.coped() && (l.estimate >= grownShare*l.initial || l.estimate*grownShare <= l.initial)
			}
			l.resize(l.estimate)
		}
	case l.noLoad.probeDue(now, l.winLen.Load(), l.sank(), l.sunk()):
		base := l.estimate
		if l.noLoad.fromSank || l.noLoad.fromSunk { // the step, if it is one, shows at half the limit before it
			base = l.settled
		}
		l.probeAt = l.probeLimit(base)
		l.resize(l.probeAt)
	default:
		w.Limit, w.NoLoadRTT = l.estimate, l.noLoad.rtt
		if l.noLoad.wide() {
			w.NoLoadMeanRTT = l.noLoad.mean
		}
		next := l.alg.Next(w)
		if math.IsNaN(next) {
			next = l.estimate
		}
		l.estimate = min(max(l.estimate+l.smooth*(next-l.estimate), l.min), l.max)
		l.resize(l.estimate)
	}
}

// readsMean reports whether alg reads a window's mean against the no-load
// mean where the work varies widely: Gradient, unless it reads the mean
// always, or an Algorithm that embeds it. The others read the fastest
// request whatever the work, so a limit given back to them would only
// sink again.
func readsMean(alg Algorithm) bool {
	m, ok := alg.(interface{ readsMean() bool })
	return ok && m.readsMean()
}

// probeLimit is the limit a probe from limit holds: half of it, rounded
// up; where the work varies widely, rounded down, but 2 at a limit of 3,
// so that over a capacity of 2 it leaves none of it idle, and at 5 not 3,
// which over a capacity of 2 holds a queue that a probe's mean would learn.
func (l *Limiter) probeLimit(limit float64) float64 {
	if !l.noLoad.wide() {
		return max(l.min, math.Ceil(limit/2))
	}
	size := math.Round(limit)
	return max(l.min, math.Floor(size/2), min(2, size-1))
}

// sank reports whether the work varies widely and the limit sank below
// sankShare of the one the last probe that saw neither a queue nor a rise
// left (see sankShare).
func (l *Limiter) sank() bool {
	return l.noLoad.wide() && l.estimate < sankShare*l.settled
}

// sunk reports whether the work varies widely and the limit sank below
// sunkShare of one of at least sunkLeast that the backend coped with: the
// last quiet probe left it, the windows before that probe read a mean
// within stepRise of the no-load mean, and the limit had grown to it, to
// grownShare of the starting limit or more, or come down to it, to
// 1/grownShare of the starting limit or less: not the starting limit
// itself, which may be far above a small capacity (see sunkLeast).
func (l *Limiter) sunk() bool {
	return l.noLoad.wide() && l.coped && l.settled >= sunkLeast && l.estimate < sunkShare*l.settled
}

// due reports whether the window is due to close at now.
func (l *Limiter) due(now int64) bool {
	return l.win.due(now, l.winMin.Load(), l.need.Load(), l.winMax.Load())
}

// sizeNext sets the samples the next window waits for, its least length,
// and the share of requests sampled, after a window whose mean latency was
// mean, in which measured requests were sampled, and which was part of a
// probe if probe is set. A probe keeps the share sampled before it: a
// window's mean counts the requests that end in it, so those begun before
// it, the longest, must be sampled as often as those begun in it, or a
// probe whose short first window raised the share reads the short
// requests of its own and few of the long ones before it: a mean too low.
// Where the work varies widely a probe samples every request from its
// draining window on instead, which lasts probeDrain mean latencies, so
// that the requests begun before it end there: its measuring window
// waits for a hundred samples of exponential work, and at the few
// requests of a limit that sank (see sankShare), or of a capacity of a
// few, the share sampled before it would keep it waiting for seconds.
func (l *Limiter) sizeNext(mean time.Duration, measured int64, probe bool) {
	need := l.samplesNeeded(mean)
	l.need.Store(need)
	length := l.winLen.Load()
	if l.noLoad.probing == probeWindows && l.noLoad.wide() { // the requests admitted before the probe end
		length = max(length, int64(probeDrain*l.noLoad.before))
		l.sample.Store(0)
	}
	l.winMin.Store(length)
	if !l.noLoad.wide() || !probe && l.noLoad.probing == 0 {
		mask := l.sample.Load()
		l.sample.Store(samplingMask(uint64(measured)*(mask+1), uint64(max(targetSamples, need))))
	}
}

// samplesNeeded returns the samples the next window needs, after one whose
// mean latency was mean: minSamples where the work varies little, and for
// the window that drains a probe's requests (it lasts probeDrain times the
// mean latency of the window before the probe instead); for a probe's
// measuring window, those for probePrecision; for any other, those for
// windowPrecision or for the distance of mean from the no-load mean over
// windowZ, whichever is fewer.
func (l *Limiter) samplesNeeded(mean time.Duration) int64 {
	switch {
	case !l.noLoad.wide() || l.noLoad.probing == probeWindows:
		return minSamples
	case l.noLoad.probing == 1 && l.noLoad.pool.n < poolLeast:
		return max(samplesNeeded(l.spread, probePrecision), unpooledSamples)
	case l.noLoad.probing == 1:
		return samplesNeeded(l.spread, probePrecision)
	}
	precision := windowPrecision
	if base := l.noLoad.mean; base > 0 && mean > 0 {
		precision = max(precision, math.Abs(float64(mean)/float64(base)-1)/windowZ)
	}
	return samplesNeeded(l.spread, precision)
}

// resize gives the wrapped semaphore the size limit, rounded, if that
// changes it.
func (l *Limiter) resize(limit float64) {
	if size, old := int64(math.Round(limit)), l.size.Load(); size != old {
		l.size.Store(size)
		l.s.Resize(size)
		if l.onChange != nil {
			l.onChange(old, size)
		}
	}
}

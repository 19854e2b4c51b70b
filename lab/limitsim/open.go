package limitsim

import (
	"cmp"
	"container/heap"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing/synctest"
	"time"
)

// The open-loop backend: requests arrive at random (Poisson) whatever
// happens to the earlier ones, the backend shares itself among the requests
// in service as the closed-loop one does, without ever refusing, and a
// client gives up ClientDeadline after it sent its request, while the
// backend goes on with the abandoned work.
const (
	// Service is a request's mean time on an idle backend; each takes
	// between 0.8 and 1.2 times it, uniformly, unless the scenario's Spread
	// says otherwise.
	Service = 10 * time.Millisecond
	// ClientDeadline is how long a client waits, from the arrival of its
	// request, before it gives up.
	ClientDeadline = 150 * time.Millisecond
)

// Open is a scenario of open-loop arrivals.
type Open struct {
	Name     string
	Length   time.Duration
	Capacity int     // requests the backend serves at full speed
	Load     float64 // arrivals over what the backend can serve
	// Step multiplies every request's time on the backend from StepAt on,
	// whatever the load: a slower disk, a farther replica. 0 is none.
	Step   float64
	StepAt time.Duration
	// FailFast makes the backend fail a request at once, in place of
	// serving it, when Capacity requests are in service already: a server
	// that rejects what it cannot start, whose failures are faster than
	// its work.
	FailFast bool
	// Spread is how a request's time on an idle backend varies around
	// Service: Uniform20 (the zero value) or another Spread.
	Spread Spread
	// Deadline is how long a client waits, from the arrival of its
	// request, before it gives up; 0 is ClientDeadline.
	Deadline time.Duration
	// Queue makes the backend Capacity servers behind one FIFO queue, as a
	// connection or thread pool is: a request waits for the first free
	// server and then takes its whole time, where the default backend
	// shares itself among the requests in service.
	Queue bool
}

// deadline is how long a client of s waits.
func (s Open) deadline() time.Duration {
	if s.Deadline == 0 {
		return ClientDeadline
	}
	return s.Deadline
}

// A Spread is a distribution of a request's time on an idle backend, with
// mean Service.
type Spread int

const (
	Uniform20   Spread = iota // uniform between 0.8 and 1.2 times Service
	Uniform50                 // uniform between 0.5 and 1.5 times Service
	Exponential               // exponential: as many short requests as a queueing model's
	// Bimodal is two kinds of request: nine in ten take half of Service,
	// one in ten 5.5 times it (a cache hit and a miss), each within a fifth
	// of its time either way.
	Bimodal
	// Split is two kinds of request as common as each other: one takes a
	// fifth of Service, the other 1.8 times it, each within a fifth of its
	// time either way.
	Split
	// RareSlow is one request in a hundred taking ten times Service, the
	// rest a little less than Service, each within a fifth of its time
	// either way: a rare, very slow tail. Its 99th percentile is the edge
	// between the kinds, the slow kind's least.
	RareSlow
	// Pareto is a heavy tail: Pareto's distribution of shape 1.5, whose
	// variance is infinite.
	Pareto
	// Weibull is Weibull's distribution of shape 0.5: most requests far
	// shorter than Service, a few many times it.
	Weibull
	// Lognormal is the lognormal distribution whose logarithm has a
	// standard deviation of lognormalSigma: a long tail, lighter than
	// Pareto's.
	Lognormal
)

// The two kinds of request of Bimodal: the share of the fast, and the
// time of each over Service.
const (
	bimodalFast  = 0.9
	bimodalShort = 0.5
	bimodalLong  = (1 - bimodalFast*bimodalShort) / (1 - bimodalFast) // the mean is Service
)

// The shape of Pareto, and the share of the slow kind of RareSlow.
const (
	paretoShape    = 1.5
	rareShare      = 0.01
	lognormalSigma = 1.0
)

// work draws a request's time on an idle backend from u, uniform in [0, 1).
func (d Spread) work(u float64) float64 {
	switch d {
	case Uniform50:
		return float64(Service) * (0.5 + u)
	case Exponential:
		return -float64(Service) * math.Log1p(-u)
	case Bimodal:
		return twoKinds(u, bimodalFast, bimodalShort, bimodalLong)
	case Split:
		return twoKinds(u, 0.5, 0.2, 1.8)
	case RareSlow:
		return twoKinds(u, 1-rareShare, (1-10*rareShare)/(1-rareShare), 10)
	case Pareto:
		return float64(Service) * (paretoShape - 1) / paretoShape / math.Pow(1-u, 1/paretoShape)
	case Weibull:
		return float64(Service) / 2 * math.Pow(-math.Log1p(-u), 2)
	case Lognormal: // the mean of exp(σZ) is exp(σ²/2)
		z := math.Sqrt2 * math.Erfinv(2*u-1)
		return float64(Service) * math.Exp(lognormalSigma*z-lognormalSigma*lognormalSigma/2)
	}
	return float64(Service) * (0.8 + 0.4*u)
}

// twoKinds draws from u a request of one of two kinds, as shares of
// Service: short with probability fast, long otherwise, each within a
// fifth of its time either way.
func twoKinds(u, fast, short, long float64) float64 {
	if u < fast {
		return float64(Service) * short * (0.8 + 0.4*u/fast)
	}
	return float64(Service) * long * (0.8 + 0.4*(u-fast)/(1-fast))
}

// p99 is the 99th percentile of the work d draws.
func (d Spread) p99() time.Duration {
	return time.Duration(math.Round(d.work(0.99)))
}

// measured is the span of s whose successes the measures count: from the
// settling time on, or from 10 s after a latency step.
func (s Open) measured() (from, to time.Duration) {
	if s.Step != 0 {
		return s.StepAt + 10*time.Second, s.Length
	}
	return 5 * time.Second, s.Length
}

// unloaded is the p99 of the time on an idle backend in the measured span.
func (s Open) unloaded() time.Duration {
	if s.Step != 0 {
		return time.Duration(float64(s.Spread.p99()) * s.Step)
	}
	return s.Spread.p99()
}

// Admitter is what the open-loop simulator drives: a Limiter in one of its
// admission modes, or a peer.
type Admitter interface {
	// Admit admits a request, waiting until ctx ends if the mode waits, and
	// returns what ends it: ok reports whether the client got its answer.
	Admit(ctx context.Context) (done func(ok bool), err error)
	Limit() int64
}

// openRun is the state of one open-loop simulation.
type openRun struct {
	sc      Open
	a       Admitter
	waits   bool
	rng     *rand.Rand
	begin   time.Time
	virtual float64
	service byFinish
	waiting byDeadline
	arrival time.Duration   // the next arrival
	ctx     context.Context // the waiting goroutines', canceled at the end

	mu      sync.Mutex
	granted []*request // admitted by waiting goroutines, not yet in service
	refused int        // refusals by waiting goroutines, not yet counted

	res  Result
	tick Point
	lat  []time.Duration

	free []float64 // with Queue: the virtual time at which each server is next free
}

// RunOpen simulates sc with a, whose Admit waits if waits is set; seed
// draws the arrivals and the work, the same for every admitter. It must be
// called inside a synctest bubble.
func RunOpen(sc Open, a Admitter, waits bool, seed uint64) Result {
	r := &openRun{sc: sc, a: a, waits: waits, rng: rand.New(rand.NewPCG(seed, 7)), begin: time.Now()}
	ctx, cancel := context.WithCancel(context.Background())
	r.ctx = ctx
	r.arrival = r.interArrival()
	nextTick := Tick
	for r.now() < sc.Length {
		next, ev := r.next(min(nextTick, sc.Length))
		r.advance(next)
		switch {
		case ev.kind == served:
			heap.Pop(&r.service)
			r.serve(ev.req)
		case ev.kind == timedOut:
			heap.Pop(&r.waiting)
			ev.req.answered = true
			ev.req.done(false)
			r.failed()
		case r.now() >= r.arrival:
			r.arrive()
		}
		r.settle()
		if r.now() >= nextTick {
			r.record()
			nextTick += Tick
		}
	}
	cancel() // the waiting goroutines end
	r.settle()
	for _, req := range r.service {
		if !req.answered {
			req.done(true)
		}
	}
	return r.res
}

func (r *openRun) now() time.Duration { return time.Since(r.begin) }

func (r *openRun) interArrival() time.Duration {
	rate := r.sc.Load * float64(r.sc.Capacity) / float64(Service) // per ns
	return time.Duration(math.Ceil(r.rng.ExpFloat64() / rate))
}

func (r *openRun) rate() float64 {
	if k := len(r.service); k > r.sc.Capacity && !r.sc.Queue {
		return float64(r.sc.Capacity) / float64(k)
	}
	return 1
}

// next returns the time of the first event before limit and the event.
func (r *openRun) next(limit time.Duration) (time.Duration, event) {
	now, next, ev := r.now(), min(limit, r.arrival), event{}
	if len(r.service) > 0 {
		left := (r.service[0].finish - r.virtual) / r.rate()
		if at := now + time.Duration(math.Ceil(max(left, 0))); at < next {
			next, ev = at, event{served, r.service[0]}
		}
	}
	for len(r.waiting) > 0 && r.waiting[0].answered {
		heap.Pop(&r.waiting)
	}
	if len(r.waiting) > 0 && r.waiting[0].deadline < next {
		next, ev = r.waiting[0].deadline, event{timedOut, r.waiting[0]}
	}
	return next, ev
}

// advance sleeps until at. In the waiting mode it then lets the waiting
// goroutines that woke at the same instant (a wait that timed out) finish
// before the event is handled: otherwise they would run beside it, and a
// refusal would land in one window or the next as the scheduler chose,
// so that two runs of the same seed differed.
func (r *openRun) advance(at time.Duration) {
	if d := at - r.now(); d > 0 {
		r.virtual += float64(d) * r.rate()
		time.Sleep(d)
		if r.waits {
			synctest.Wait()
		}
	}
}

// arrive admits the request that arrives now, at once or by a goroutine
// that waits, and draws the next arrival.
func (r *openRun) arrive() {
	req := &request{start: r.now(), deadline: r.now() + r.sc.deadline()}
	req.finish = r.sc.Spread.work(r.rng.Float64())
	if r.sc.Step != 0 && req.start >= r.sc.StepAt {
		req.finish *= r.sc.Step
	}
	r.arrival = r.now() + r.interArrival()
	if !r.waits {
		done, err := r.a.Admit(context.Background())
		if err != nil {
			r.failed()
			return
		}
		req.done = done
		r.enter(req)
		return
	}
	go func() {
		ctx, cancel := context.WithDeadline(r.ctx, r.begin.Add(req.deadline))
		done, err := r.a.Admit(ctx)
		cancel()
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			r.refused++
			return
		}
		req.done = done
		r.granted = append(r.granted, req)
	}()
}

// settle lets the waiting goroutines run, then puts the requests they were
// granted in service and counts their refusals.
func (r *openRun) settle() {
	if !r.waits {
		return
	}
	synctest.Wait()
	r.mu.Lock()
	granted, refused := r.granted, r.refused
	r.granted, r.refused = nil, 0
	r.mu.Unlock()
	for range refused {
		r.failed()
	}
	slices.SortFunc(granted, func(a, b *request) int { return cmp.Compare(a.start, b.start) }) // woken in no fixed order
	for _, req := range granted {
		r.enter(req)
	}
}

// enter puts req, whose finish holds its work, in service, or fails it at
// once if the backend fails fast and is full.
func (r *openRun) enter(req *request) {
	if r.sc.FailFast && len(r.service) >= r.sc.Capacity {
		req.answered = true
		req.done(false)
		r.failed()
		return
	}
	req.finish = r.finishAt(req.finish)
	heap.Push(&r.service, req)
	heap.Push(&r.waiting, req)
}

// finishAt returns the virtual time at which work that enters now is
// done: at once in service, or with Queue once the first free server took
// it, which is then busy until that time.
func (r *openRun) finishAt(work float64) float64 {
	if !r.sc.Queue {
		return r.virtual + work
	}
	if r.free == nil {
		r.free = make([]float64, r.sc.Capacity)
	}
	first := slices.Index(r.free, slices.Min(r.free))
	r.free[first] = max(r.free[first], r.virtual) + work
	return r.free[first]
}

func (r *openRun) serve(req *request) {
	if req.answered {
		return
	}
	req.answered = true
	req.done(true)
	latency := r.now() - req.start
	r.res.Successes = append(r.res.Successes, Sample{req.start, latency})
	r.tick.Successes++
	r.lat = append(r.lat, latency)
}

func (r *openRun) failed() {
	r.res.Failures++
	r.tick.Timeouts++
}

func (r *openRun) record() {
	p := r.tick
	p.T, p.Limit, p.InService, p.Capacity = r.now(), r.a.Limit(), len(r.service), r.sc.Capacity
	p.P99 = percentile(r.lat, 0.99)
	r.res.Series = append(r.res.Series, p)
	r.tick, r.lat = Point{}, r.lat[:0]
}

// Package limitsim runs the adaptive limits of package adaptive against a
// simulated backend, in fake time: it must be called inside a
// testing/synctest bubble, where a scenario of a minute runs in well under
// a second and every run is the same.
//
// The backend serves requests like a processor shared among them: while k
// requests are in service and k is at most its capacity C, each progresses
// at full speed; beyond C each progresses at C/k of it, so latency grows
// with the queue while throughput stays at C requests per unit of work. A
// request that arrives while 4C are in service is refused after a
// millisecond. A closed population of clients each sends a request, waits
// for it, and sends the next. A client gives up on a request once it has
// waited Timeout times the request's unloaded latency: the request counts
// as failed, the client sends its next one at once, and the backend, which
// does not know, goes on working on the abandoned one, so overload wastes
// capacity as it does in production. After a refusal a client pauses for
// retryPause.
// Goodput, the successes per second, is what a run delivers.
package limitsim

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// Work is the time a request takes on an idle backend; a slow request
// takes SlowFactor times as long.
const (
	Work       = 20 * time.Millisecond
	SlowFactor = 10
	// Timeout is how many times its unloaded latency a client waits for a
	// request before it gives up.
	Timeout = 3
	// refuseAt is how many times its capacity the backend holds in service
	// before it refuses requests.
	refuseAt   = 4
	refusal    = time.Millisecond
	retryPause = 10 * time.Millisecond
	// Tick is the interval of the recorded series.
	Tick = 50 * time.Millisecond
)

// Phase is a stretch of a scenario with a constant capacity and load.
type Phase struct {
	Length   time.Duration
	Capacity int // requests the backend serves at full speed
	Clients  int
}

// Scenario is a sequence of phases.
type Scenario struct {
	Name   string
	Phases []Phase
	// Slow is the fraction of requests that take SlowFactor × Work.
	Slow float64
}

// Scenarios are the four the docs report.
var Scenarios = []Scenario{
	{Name: "steady", Phases: []Phase{{30 * time.Second, 40, 160}}},
	{Name: "halves", Phases: []Phase{{10 * time.Second, 40, 160}, {10 * time.Second, 20, 160}, {10 * time.Second, 40, 160}}},
	{Name: "slow tail", Phases: []Phase{{30 * time.Second, 40, 160}}, Slow: 0.05},
	{Name: "burst", Phases: []Phase{{10 * time.Second, 40, 20}, {10 * time.Second, 40, 200}, {10 * time.Second, 40, 20}}},
}

// Point is one tick of a run's series.
type Point struct {
	T          time.Duration
	Limit      int64
	InService  int // requests in the backend
	Capacity   int
	P99        time.Duration // of the successes that ended in the tick; 0 if none
	Successes  int
	Refusals   int
	Timeouts   int
	phaseIndex int
}

// Sample is one request that succeeded.
type Sample struct {
	Start, Latency time.Duration
}

// Result is one run: its series, its successes and how many requests
// failed, refused or abandoned at their deadline.
type Result struct {
	Series    []Point
	Successes []Sample
	Failures  int
}

// request is one request in service.
type request struct {
	client    int
	start     time.Duration // since the run began
	finish    float64       // virtual time at which its work is done
	deadline  time.Duration // when its client gives up
	answered  bool          // the client has its answer, or gave up
	tok       adaptive.Token
	done      func(ok bool) // ends an open-loop request
	refusedAt time.Duration // for refused requests: when the refusal arrives
}

type byFinish []*request

func (h byFinish) Len() int           { return len(h) }
func (h byFinish) Less(i, j int) bool { return h[i].finish < h[j].finish }
func (h byFinish) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *byFinish) Push(x any)        { *h = append(*h, x.(*request)) }
func (h *byFinish) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}

type byDeadline []*request

func (h byDeadline) Len() int           { return len(h) }
func (h byDeadline) Less(i, j int) bool { return h[i].deadline < h[j].deadline }
func (h byDeadline) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *byDeadline) Push(x any)        { *h = append(*h, x.(*request)) }
func (h *byDeadline) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}

// run is the state of one simulation.
type run struct {
	sc      Scenario
	l       *adaptive.Limiter
	rng     *rand.Rand
	begin   time.Time
	virtual float64 // work done per request in service so far, in ns
	service byFinish
	waiting byDeadline // requests in service, by deadline; answered ones are skipped
	refused []*request // in order of refusedAt
	queue   []int      // clients waiting for the limit, in arrival order
	paused  map[int]time.Duration
	clients int // clients that exist now
	res     Result
	tick    Point
	tickLat []time.Duration
}

// Run simulates sc with a limit that starts at initial and moves by alg.
// It must be called inside a synctest bubble.
func Run(sc Scenario, alg adaptive.Algorithm, initial int64) Result {
	bounds := adaptive.WithBounds(1, 1000)
	if _, ok := alg.(fixed); ok { // nor halved by the no-load latency's probes
		bounds = adaptive.WithBounds(initial, initial)
	}
	r := &run{
		sc: sc,
		l: adaptive.New(weighted.New(1), initial, alg, bounds,
			adaptive.WithRand(rand.NewPCG(3, 4))), // the same requests sampled at every run
		rng:    rand.New(rand.NewPCG(1, 2)),
		begin:  time.Now(),
		paused: map[int]time.Duration{},
	}
	var end time.Duration
	for i, ph := range sc.Phases {
		r.setClients(ph.Clients)
		end += ph.Length
		r.until(end, i)
	}
	for _, req := range r.service { // release what is still held
		if !req.answered {
			req.tok.Done(true)
		}
	}
	for _, req := range r.refused {
		req.tok.Done(false)
	}
	return r.res
}

func (r *run) now() time.Duration { return time.Since(r.begin) }

// setClients adds clients to the queue, or marks the extra ones to leave.
func (r *run) setClients(n int) {
	for ; r.clients < n; r.clients++ {
		r.queue = append(r.queue, r.clients)
	}
	r.clients = n
	r.queue = slices.DeleteFunc(r.queue, func(c int) bool { return c >= n })
}

// rate is how fast each request in service progresses, in work per ns.
func (r *run) rate(capacity int) float64 {
	if k := len(r.service); k > capacity {
		return float64(capacity) / float64(k)
	}
	return 1
}

// until runs phase i up to end.
func (r *run) until(end time.Duration, i int) {
	capacity := r.sc.Phases[i].Capacity
	r.tick.phaseIndex, r.tick.Capacity = i, capacity
	nextTick := (r.now()/Tick + 1) * Tick
	for {
		r.admit(capacity)
		next, ev := r.nextEvent(min(end, nextTick), capacity)
		r.advance(next, capacity)
		switch ev.kind {
		case refused:
			r.refused = r.refused[1:]
			r.fail(ev.req)
			r.tick.Refusals++
			r.paused[ev.req.client] = r.now() + retryPause
		case timedOut:
			heap.Pop(&r.waiting)
			r.fail(ev.req)
			r.tick.Timeouts++
			r.requeue(ev.req.client)
		case served:
			heap.Pop(&r.service)
			r.serve(ev.req)
		}
		r.wakePaused()
		if r.now() >= nextTick {
			r.record(capacity)
			nextTick += Tick
		}
		if r.now() >= end {
			return
		}
	}
}

type eventKind int

const (
	none eventKind = iota
	served
	timedOut
	refused
)

type event struct {
	kind eventKind
	req  *request
}

// nextEvent returns the time of the first event before limit, and the
// event; none if the first is a paused client's return or nothing happens.
func (r *run) nextEvent(limit time.Duration, capacity int) (time.Duration, event) {
	now, next, ev := r.now(), limit, event{}
	if len(r.service) > 0 {
		left := (r.service[0].finish - r.virtual) / r.rate(capacity)
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
	if len(r.refused) > 0 && r.refused[0].refusedAt < next {
		next, ev = r.refused[0].refusedAt, event{refused, r.refused[0]}
	}
	for _, at := range r.paused {
		if at < next {
			next, ev = at, event{}
		}
	}
	return next, ev
}

// fail ends req as a failure for its client.
func (r *run) fail(req *request) {
	req.answered = true
	req.tok.Done(false)
	r.res.Failures++
}

// serve ends req's work: a success if its client still waits, wasted work
// otherwise.
func (r *run) serve(req *request) {
	if req.answered {
		return
	}
	req.answered = true
	latency := r.now() - req.start
	req.tok.Done(true)
	r.res.Successes = append(r.res.Successes, Sample{req.start, latency})
	r.tick.Successes++
	r.tickLat = append(r.tickLat, latency)
	r.requeue(req.client)
}

// advance sleeps to at, moving the backend's work on.
func (r *run) advance(at time.Duration, capacity int) {
	if d := at - r.now(); d > 0 {
		r.virtual += float64(d) * r.rate(capacity)
		time.Sleep(d)
	}
}

func (r *run) wakePaused() {
	now := r.now()
	var ready []int
	for c, at := range r.paused {
		if at <= now {
			ready = append(ready, c)
		}
	}
	slices.Sort(ready) // map order is random; the queue's is not
	for _, c := range ready {
		delete(r.paused, c)
		r.requeue(c)
	}
}

// requeue sends client c's next request, unless c has left.
func (r *run) requeue(c int) {
	if c < r.clients {
		r.queue = append(r.queue, c)
	}
}

// admit starts the queued requests the limit lets through, in order.
func (r *run) admit(capacity int) {
	for len(r.queue) > 0 {
		tok, ok := r.l.TryStart(1)
		if !ok {
			return
		}
		c := r.queue[0]
		r.queue = r.queue[1:]
		req := &request{client: c, start: r.now(), tok: tok}
		if len(r.service) >= refuseAt*capacity {
			req.refusedAt = r.now() + refusal
			r.refused = append(r.refused, req)
			continue
		}
		work := float64(Work)
		if r.rng.Float64() < r.sc.Slow {
			work *= SlowFactor
		}
		req.finish = r.virtual + work
		req.deadline = req.start + Timeout*time.Duration(work)
		heap.Push(&r.service, req)
		heap.Push(&r.waiting, req)
	}
}

func (r *run) record(capacity int) {
	p := r.tick
	p.T, p.Limit, p.InService = r.now(), r.l.Limit(), len(r.service)
	p.P99 = percentile(r.tickLat, 0.99)
	r.res.Series = append(r.res.Series, p)
	r.tick = Point{phaseIndex: p.phaseIndex, Capacity: capacity}
	r.tickLat = r.tickLat[:0]
}

// percentile is the q-quantile of d (nearest rank), 0 if d is empty.
func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(math.Ceil(q*float64(len(s))))-1)]
}

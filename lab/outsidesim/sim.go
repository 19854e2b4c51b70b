// Package outsidesim is an independent open-loop simulator and API checker for
// github.com/semacat/sem/adaptive, written from its public docs only.
package outsidesim

import (
	"container/heap"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	fsal "github.com/failsafe-go/failsafe-go/adaptivelimiter"
	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

type Kind int

const (
	KFixed Kind = iota
	KAdaptive
	KFailsafe
)

type Mode int

const (
	Try Mode = iota
	Wait
)

func (m Mode) String() string { return [...]string{"TryStart", "Start"}[m] }

type Contender struct {
	Kind  Kind
	Alg   string // AIMD, Vegas, Gradient
	Mode  Mode
	Fixed int64
}

func (c Contender) Name() string {
	switch c.Kind {
	case KFixed:
		return "fixed"
	case KFailsafe:
		return "failsafe-go defaults"
	}
	return c.Alg
}

func NewAlg(name string) adaptive.Algorithm {
	switch name {
	case "AIMD":
		return &adaptive.AIMD{}
	case "Vegas":
		return &adaptive.Vegas{}
	case "Gradient":
		return &adaptive.Gradient{}
	}
	panic(name)
}

type Result struct {
	Measured, Success int
	Goodput           float64 // successes per second among measured arrivals
	P99               time.Duration
	P99Ratio          float64
	LimitMedians      []float64 // per second of the measured span
	Refused           int64
	ErrKinds          map[string]int
	ChainErrs         int // WithOnLimitChange violations
	BoundErrs         int
	LateGrants        int
	Changes           int
	EndLimit          int64
}

// FarthestFrom reports the largest |median-ideal|/ideal over the seconds
// from skip seconds into the measured span.
func (r Result) FarthestFrom(ideal float64, skip int) float64 {
	m := 0.0
	for i, v := range r.LimitMedians {
		if i < skip {
			continue
		}
		if d := math.Abs(v-ideal) / ideal; d > m {
			m = d
		}
	}
	return m
}

// ---- processor-sharing backend with virtual time ----

type job struct {
	finV float64
	id   int
}
type jobHeap []job

func (h jobHeap) Len() int           { return len(h) }
func (h jobHeap) Less(i, j int) bool { return h[i].finV < h[j].finV }
func (h jobHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *jobHeap) Push(x any)        { *h = append(*h, x.(job)) }
func (h *jobHeap) Pop() any {
	o := *h
	x := o[len(o)-1]
	*h = o[:len(o)-1]
	return x
}

type dl struct {
	at time.Duration
	id int
}
type dlHeap []dl

func (h dlHeap) Len() int { return len(h) }
func (h dlHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].id < h[j].id
}
func (h dlHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dlHeap) Push(x any)   { *h = append(*h, x.(dl)) }
func (h *dlHeap) Pop() any {
	o := *h
	x := o[len(o)-1]
	*h = o[:len(o)-1]
	return x
}

type lockedSrc struct {
	mu sync.Mutex
	s  rand.Source
}

func (l *lockedSrc) Uint64() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s.Uint64()
}

type startRes struct {
	id  int
	tok adaptive.Token
	err error
	at  time.Duration
}

const (
	stWaiting = iota
	stRunning
	stDone
)

type reqState struct {
	state    uint8
	ok       bool
	tok      adaptive.Token
	permit   fsal.Permit
	reported bool
}

// Run simulates one contender on one trace. Adaptive and failsafe contenders
// run inside a synctest bubble so that their clocks are the simulated one.
func Run(t *testing.T, sc Scenario, tr *Trace, c Contender, seed uint64) Result {
	var res Result
	if c.Kind == KFixed {
		res = simulate(sc, tr, c, seed, false)
		return res
	}
	synctest.Test(t, func(t *testing.T) {
		res = simulate(sc, tr, c, seed, true)
	})
	return res
}

func simulate(sc Scenario, tr *Trace, c Contender, seed uint64, clocked bool) Result {
	res := Result{ErrKinds: map[string]int{}}
	n := len(tr.Arr)
	reqs := make([]reqState, n)
	var t0 time.Time
	if clocked {
		t0 = time.Now()
	}
	// contenders
	var (
		fixed    *weighted.Semaphore
		lim      *adaptive.Limiter
		fs       fsal.AdaptiveLimiter[any]
		changes  [][2]int64
		boundMin int64 = 1
		boundMax int64 = 1 << 20
	)
	switch c.Kind {
	case KFixed:
		fixed = weighted.New(c.Fixed)
	case KAdaptive:
		src := &lockedSrc{s: rand.NewPCG(seed, 77)}
		lim = adaptive.New(weighted.New(1), sc.Initial, NewAlg(c.Alg),
			adaptive.WithRand(src),
			adaptive.WithOnLimitChange(func(o, nw int64) { changes = append(changes, [2]int64{o, nw}) }))
	case KFailsafe:
		fs = fsal.NewWithDefaults[any]()
	}
	limitNow := func() float64 {
		switch c.Kind {
		case KAdaptive:
			return float64(lim.Limit())
		case KFailsafe:
			return float64(fs.Limit())
		}
		return float64(c.Fixed)
	}

	var (
		now     time.Duration
		V       float64
		lastT   time.Duration
		jobs    jobHeap
		dls     dlHeap
		next    int
		results = make(chan startRes, 1<<15)
		timer   *time.Timer
		lats    []time.Duration
		samples []float64
		nextSmp = time.Duration(0)
		end     = sc.Length + sc.Deadline + time.Millisecond
	)
	if clocked && c.Mode == Wait {
		timer = time.NewTimer(time.Hour)
		timer.Stop()
	}
	advance := func(to time.Duration) {
		if k := len(jobs); k > 0 {
			rate := math.Min(1, float64(sc.C)/float64(k))
			V += rate * float64(to-lastT)
		}
		lastT = to
	}
	nextCompletion := func() time.Duration {
		if len(jobs) == 0 {
			return math.MaxInt64
		}
		rate := math.Min(1, float64(sc.C)/float64(len(jobs)))
		d := (jobs[0].finV - V) / rate
		if d < 0 {
			d = 0
		}
		return lastT + time.Duration(math.Ceil(d))
	}
	measured := func(id int) bool { return tr.Arr[id] >= sc.MeasureFrom }
	admit := func(id int) {
		reqs[id].state = stRunning
		heap.Push(&jobs, job{finV: V + float64(tr.Work[id]), id: id})
		heap.Push(&dls, dl{at: tr.Arr[id] + sc.Deadline, id: id})
	}
	report := func(id int, ok bool) {
		r := &reqs[id]
		if r.reported {
			return
		}
		r.reported = true
		switch c.Kind {
		case KFixed:
			fixed.Release(1)
		case KAdaptive:
			r.tok.Done(ok)
		case KFailsafe:
			// A client that gives up records the time it waited (150 ms):
			// failsafe-go then sees the latency of an overloaded backend.
			// (Drop, which records nothing, leaves it blind at capacity 2.)
			r.permit.Record()
		}
	}
	var pendingGrants []startRes
	handleStart := func(sr startRes) {
		r := &reqs[sr.id]
		if sr.err != nil {
			r.state = stDone
			switch {
			case errors.Is(sr.err, adaptive.ErrQueueTimeout):
				res.ErrKinds["ErrQueueTimeout"]++
			case errors.Is(sr.err, adaptive.ErrLimitExceeded):
				res.ErrKinds["ErrLimitExceeded"]++
			case errors.Is(sr.err, context.DeadlineExceeded):
				res.ErrKinds["DeadlineExceeded"]++
			default:
				res.ErrKinds[sr.err.Error()]++
			}
			return
		}
		if sr.at != now {
			res.LateGrants++
		}
		r.tok = sr.tok
		admit(sr.id)
	}
	drain := func() {
		if c.Mode != Wait || c.Kind != KAdaptive {
			return
		}
		synctest.Wait()
		pendingGrants = pendingGrants[:0]
		for {
			select {
			case sr := <-results:
				pendingGrants = append(pendingGrants, sr)
				continue
			default:
			}
			break
		}
		slices.SortFunc(pendingGrants, func(a, b startRes) int { return a.id - b.id })
		for _, sr := range pendingGrants {
			handleStart(sr)
		}
	}

	for {
		tNext := end
		if next < n && tr.Arr[next] < tNext {
			tNext = tr.Arr[next]
		}
		if tc := nextCompletion(); tc < tNext {
			tNext = tc
		}
		if len(dls) > 0 && dls[0].at < tNext {
			tNext = dls[0].at
		}
		if nextSmp < tNext {
			tNext = nextSmp
		}
		// wait for tNext on the fake clock
		if clocked {
			interrupted := false
			for {
				d := tNext - time.Since(t0)
				if d <= 0 {
					break
				}
				if timer == nil {
					time.Sleep(d)
					continue
				}
				timer.Reset(d)
				select {
				case <-timer.C:
					continue
				case sr := <-results:
					timer.Stop()
					at := time.Since(t0)
					advance(at)
					now = at
					handleStart(sr)
					interrupted = true
				}
				break
			}
			if interrupted {
				continue
			}
		}
		if tNext >= end {
			break
		}
		now = tNext
		advance(now)
		// completions
		for len(jobs) > 0 && jobs[0].finV <= V+1e-3 {
			j := heap.Pop(&jobs).(job)
			r := &reqs[j.id]
			if !r.reported {
				lat := now - tr.Arr[j.id]
				ok := lat <= sc.Deadline
				r.ok = ok
				r.state = stDone
				report(j.id, ok)
				if ok && measured(j.id) {
					lats = append(lats, lat)
				}
				drain()
			}
		}
		// client deadlines
		for len(dls) > 0 && dls[0].at <= now {
			d := heap.Pop(&dls).(dl)
			if !reqs[d.id].reported {
				reqs[d.id].state = stDone
				report(d.id, false)
				drain()
			}
		}
		// samples of the limit
		for nextSmp <= now {
			samples = append(samples, limitNow())
			nextSmp += 100 * time.Millisecond
		}
		// arrivals
		for next < n && tr.Arr[next] <= now {
			id := next
			next++
			switch c.Kind {
			case KFixed:
				if fixed.TryAcquire(1) {
					admit(id)
				} else {
					reqs[id].state = stDone
				}
			case KFailsafe:
				if p, ok := fs.TryAcquirePermit(); ok {
					reqs[id].permit = p
					admit(id)
				} else {
					reqs[id].state = stDone
				}
			case KAdaptive:
				if c.Mode == Try {
					if tok, ok := lim.TryStart(1); ok {
						reqs[id].tok = tok
						admit(id)
					} else {
						reqs[id].state = stDone
					}
				} else {
					arr := tr.Arr[id]
					go func() {
						ctx, cancel := context.WithDeadline(context.Background(), t0.Add(arr+sc.Deadline))
						tok, err := lim.Start(ctx, 1)
						cancel()
						results <- startRes{id: id, tok: tok, err: err, at: time.Since(t0)}
					}()
					drain()
				}
			}
			if lim != nil {
				if l := lim.Limit(); l < boundMin || l > boundMax {
					res.BoundErrs++
				}
			}
		}
	}
	// measures
	for id := range n {
		if measured(id) {
			res.Measured++
			if reqs[id].ok {
				res.Success++
			}
		}
	}
	span := (sc.Length - sc.MeasureFrom).Seconds()
	res.Goodput = float64(res.Success) / span
	if len(lats) > 0 {
		slices.Sort(lats)
		res.P99 = lats[int(math.Ceil(0.99*float64(len(lats))))-1]
		res.P99Ratio = float64(res.P99) / float64(sc.UnloadedP99())
	}
	// per-second medians over the measured span
	from := int(sc.MeasureFrom / (100 * time.Millisecond))
	to := int(sc.Length / (100 * time.Millisecond))
	for s := from; s+10 <= to && s+10 <= len(samples); s += 10 {
		w := slices.Clone(samples[s : s+10])
		slices.Sort(w)
		res.LimitMedians = append(res.LimitMedians, (w[4]+w[5])/2)
	}
	if lim != nil {
		res.Refused = lim.Refused()
		res.EndLimit = lim.Limit()
		res.Changes = len(changes)
		prev := sc.Initial
		for _, ch := range changes {
			if ch[0] != prev || ch[0] == ch[1] || ch[1] < boundMin || ch[1] > boundMax {
				res.ChainErrs++
			}
			prev = ch[1]
		}
		if prev != lim.Limit() {
			res.ChainErrs++
		}
	}
	return res
}

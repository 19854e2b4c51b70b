// Package sim is an open-loop simulator: Poisson arrivals into an admission
// limit in front of an M/G/c FIFO backend (C servers, one FIFO queue), with
// clients that give up at a deadline while the backend still serves their
// abandoned request. Run inside testing/synctest.
package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

const Mean = 10 * time.Millisecond

type Shape string

const (
	Const   Shape = "const±20%"
	Exp     Shape = "exponential"
	Bimodal Shape = "bimodal 5/30ms" // 80% 5ms, 20% 30ms, each ±10%
	LogN    Shape = "lognormal σ=1"
)

var Shapes = []Shape{Const, Exp, Bimodal, LogN}

func draw(r *rand.Rand, s Shape) time.Duration {
	m := float64(Mean)
	var v float64
	switch s {
	case Const:
		v = m * (0.8 + 0.4*r.Float64())
	case Exp:
		v = m * r.ExpFloat64()
	case Bimodal:
		if r.Float64() < 0.8 {
			v = 0.5 * m * (0.9 + 0.2*r.Float64())
		} else {
			v = 3 * m * (0.9 + 0.2*r.Float64())
		}
	case LogN:
		const sigma = 1.0
		v = m * math.Exp(r.NormFloat64()*sigma-sigma*sigma/2)
	}
	if v < float64(50*time.Microsecond) {
		v = float64(50 * time.Microsecond)
	}
	return time.Duration(v)
}

type Scenario struct {
	Name        string
	Shape       Shape
	C           int
	Load        float64 // multiple of capacity C/Mean
	Length      time.Duration
	Step        float64 // latency multiplier from StepAt on (0: none)
	StepAt      time.Duration
	Burst       bool // on/off: 0.5x for 5s, then Load for 5s, repeated
	Deadline    time.Duration
	MeasureFrom time.Duration
}

type Req struct {
	At      time.Duration
	Service time.Duration // unstepped
}

// Trace draws arrivals and service times for a seed.
func Trace(sc Scenario, seed uint64) []Req {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	capRate := float64(sc.C) / Mean.Seconds() // requests per second
	var out []Req
	t := 0.0
	L := sc.Length.Seconds()
	for t < L {
		rate := capRate * sc.Load
		boundary := L
		if sc.Burst {
			ph := int(t / 5)
			if ph%2 == 0 {
				rate = capRate * 0.5
			}
			boundary = math.Min(L, float64(ph+1)*5)
		}
		gap := r.ExpFloat64() / rate
		if t+gap >= boundary {
			t = boundary
			continue
		}
		t += gap
		out = append(out, Req{At: time.Duration(t * 1e9), Service: draw(r, sc.Shape)})
	}
	return out
}

// UnloadedP99 is the p99 of the shape's service time (no queue), by sampling.
func UnloadedP99(s Shape, seed uint64) time.Duration {
	r := rand.New(rand.NewPCG(seed, 0x99))
	xs := make([]time.Duration, 200000)
	for i := range xs {
		xs[i] = draw(r, s)
	}
	return pct(xs, 0.99)
}

func pct(xs []time.Duration, p float64) time.Duration {
	if len(xs) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(p*float64(len(s)))) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

type backend struct {
	mu    sync.Mutex
	free  []time.Time // when each server becomes free
	step  float64
	stepT time.Time
}

// enter queues a request at now (FIFO), returns when it will finish.
func (b *backend) enter(now time.Time, svc time.Duration) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.step > 0 && !now.Before(b.stepT) {
		svc = time.Duration(float64(svc) * b.step)
	}
	k := 0
	for i := range b.free {
		if b.free[i].Before(b.free[k]) {
			k = i
		}
	}
	start := now
	if b.free[k].After(start) {
		start = b.free[k]
	}
	fin := start.Add(svc)
	b.free[k] = fin
	return fin
}

type lockedSrc struct {
	mu sync.Mutex
	s  rand.Source
}

func (l *lockedSrc) Uint64() uint64 { l.mu.Lock(); defer l.mu.Unlock(); return l.s.Uint64() }

// traceHook, if set (tests only), sees each Limiter as it is made.
var traceHook func(*adaptive.Limiter, time.Time)

type Contender struct {
	Name  string // "fixed" or "AIMD", "Vegas", "Gradient"
	Fixed int64
	Wait  bool // Start(ctx) / Acquire(ctx) instead of TryStart / TryAcquire
}

type Result struct {
	Goodput  float64 // successes/s in the measured interval
	P99      time.Duration
	Success  int
	Refused  int
	TimedOut int
	LimitMed float64 // median of limit sampled every 100ms in measured interval
}

// Run must be called inside a synctest bubble.
func Run(sc Scenario, tr []Req, c Contender, seed uint64) Result {
	t0 := time.Now()
	be := &backend{free: make([]time.Time, sc.C), step: sc.Step, stepT: t0.Add(sc.StepAt)}
	for i := range be.free {
		be.free[i] = t0
	}
	var lim *adaptive.Limiter
	var fixed *weighted.Semaphore
	if c.Fixed > 0 {
		fixed = weighted.New(c.Fixed)
	} else {
		var alg adaptive.Algorithm
		switch c.Name {
		case "AIMD":
			alg = &adaptive.AIMD{}
		case "Vegas":
			alg = &adaptive.Vegas{}
		case "Gradient":
			alg = &adaptive.Gradient{}
		}
		lim = adaptive.New(weighted.New(1), 20, alg, adaptive.WithRand(&lockedSrc{s: rand.NewPCG(seed, 7)}))
		if traceHook != nil {
			traceHook(lim, t0)
		}
	}
	var mu sync.Mutex
	var lats []time.Duration
	var res Result
	mfrom := t0.Add(sc.MeasureFrom)
	end := t0.Add(sc.Length)
	var wg sync.WaitGroup
	// limit sampler
	var limits []float64
	if lim != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				time.Sleep(100 * time.Millisecond)
				if !time.Now().Before(mfrom) {
					limits = append(limits, float64(lim.Limit()))
				}
			}
		}()
	}
	for _, rq := range tr {
		time.Sleep(t0.Add(rq.At).Sub(time.Now()))
		arr := time.Now()
		dl := arr.Add(sc.Deadline)
		wg.Add(1)
		go func(rq Req) {
			defer wg.Done()
			ok := false
			var tok adaptive.Token
			if c.Wait {
				ctx, cancel := context.WithDeadline(context.Background(), dl)
				var err error
				if fixed != nil {
					err = fixed.Acquire(ctx, 1)
				} else {
					tok, err = lim.Start(ctx, 1)
				}
				cancel()
				ok = err == nil
			} else if fixed != nil {
				ok = fixed.TryAcquire(1)
			} else {
				tok, ok = lim.TryStart(1)
			}
			measured := !arr.Before(mfrom)
			if !ok {
				if measured {
					mu.Lock()
					res.Refused++
					mu.Unlock()
				}
				return
			}
			fin := be.enter(time.Now(), rq.Service)
			succ := !fin.After(dl)
			if succ {
				time.Sleep(fin.Sub(time.Now()))
			} else {
				time.Sleep(dl.Sub(time.Now()))
			}
			if fixed != nil {
				fixed.Release(1)
			} else {
				tok.Done(succ)
			}
			if measured {
				mu.Lock()
				if succ {
					res.Success++
					lats = append(lats, time.Since(arr))
				} else {
					res.TimedOut++
				}
				mu.Unlock()
			}
		}(rq)
	}
	wg.Wait()
	res.Goodput = float64(res.Success) / (sc.Length - sc.MeasureFrom).Seconds()
	res.P99 = pct(lats, 0.99)
	if len(limits) > 0 {
		sort.Float64s(limits)
		res.LimitMed = limits[len(limits)/2]
	}
	return res
}

// FixedSizes to sweep for capacity C.
func FixedSizes(C int) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for _, f := range []float64{0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3} {
		k := int64(math.Round(f * float64(C)))
		if k < 1 {
			k = 1
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

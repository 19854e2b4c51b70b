package outsidesim

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"time"
)

// Shape is the distribution of a request's time on an idle backend, as a
// multiplier of the mean (mean 1).
type Shape int

const (
	U20       Shape = iota // uniform ±20%
	Exp                    // exponential
	Bimodal                // 90% at 0.5x, 10% at 5.5x, each ±20%
	LogNormal              // lognormal sigma=1 (heavy tail)
	Pareto                 // Pareto alpha=1.5 (very heavy tail)
)

func (s Shape) String() string {
	return [...]string{"u±20%", "exp", "bimodal", "lognormal σ1", "pareto α1.5"}[s]
}

func (s Shape) draw(r *rand.Rand) float64 {
	switch s {
	case U20:
		return 0.8 + 0.4*r.Float64()
	case Exp:
		return r.ExpFloat64()
	case Bimodal:
		j := 0.8 + 0.4*r.Float64()
		if r.Float64() < 0.9 {
			return 0.5 * j
		}
		return 5.5 * j
	case LogNormal:
		return math.Exp(r.NormFloat64() - 0.5)
	case Pareto:
		u := 1 - r.Float64()
		return (1.0 / 3.0) / math.Pow(u, 1/1.5)
	}
	panic("shape")
}

// unloadedP99 is the p99 of the work alone, as a multiplier.
var p99Cache sync.Map

func (s Shape) unloadedP99() float64 {
	if v, ok := p99Cache.Load(s); ok {
		return v.(float64)
	}
	r := rand.New(rand.NewPCG(99, 99))
	xs := make([]float64, 400000)
	for i := range xs {
		xs[i] = s.draw(r)
	}
	sort.Float64s(xs)
	v := xs[int(math.Ceil(0.99*float64(len(xs))))-1]
	p99Cache.Store(s, v)
	return v
}

type Scenario struct {
	Name        string
	C           int
	Load        float64
	Shape       Shape
	Base        time.Duration // mean work on an idle backend
	Deadline    time.Duration // client gives up after this (since arrival)
	Length      time.Duration // arrivals stop here
	Step        float64       // latency step factor (0: none)
	StepAt      time.Duration
	MeasureFrom time.Duration
	Initial     int64
}

func (sc Scenario) norm() Scenario {
	if sc.Base == 0 {
		sc.Base = 10 * time.Millisecond
	}
	if sc.Deadline == 0 {
		sc.Deadline = 150 * time.Millisecond
	}
	if sc.Length == 0 {
		sc.Length = 30 * time.Second
	}
	if sc.Initial == 0 {
		sc.Initial = 20
	}
	if sc.MeasureFrom == 0 {
		sc.MeasureFrom = 5 * time.Second
		if sc.Step != 0 {
			sc.MeasureFrom = sc.StepAt + 10*time.Second
		}
	}
	return sc
}

// UnloadedP99 is the p99 of the work alone in the measured span.
func (sc Scenario) UnloadedP99() time.Duration {
	f := sc.Shape.unloadedP99() * float64(sc.Base)
	if sc.Step != 0 && sc.MeasureFrom >= sc.StepAt {
		f *= sc.Step
	}
	return time.Duration(f)
}

type Trace struct {
	Arr  []time.Duration
	Work []time.Duration
}

func GenTrace(sc Scenario, seed uint64) *Trace {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	rate := sc.Load * float64(sc.C) / sc.Base.Seconds() // per second
	tr := &Trace{}
	t := 0.0
	for {
		t += r.ExpFloat64() / rate
		at := time.Duration(t * 1e9)
		if at >= sc.Length {
			break
		}
		w := sc.Shape.draw(r) * float64(sc.Base)
		if sc.Step != 0 && at >= sc.StepAt {
			w *= sc.Step
		}
		if w < 1000 {
			w = 1000
		}
		tr.Arr = append(tr.Arr, at)
		tr.Work = append(tr.Work, time.Duration(w))
	}
	return tr
}

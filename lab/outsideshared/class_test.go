package outsideshared

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// classAdm checks the documented refusal rule of a class: a request of one
// permit is refused for its class only while at least half the limit is in use.
type classAdm struct {
	limAdm
	mu         sync.Mutex
	refusals   int
	suspicious int // refused while InFlight < floor(limit/2) before and after
	examples   []string
}

func (a *classAdm) admit(ctx context.Context, class int) (func(bool), error) {
	inB, limB := a.l.InFlight(), a.l.Limit()
	done, err := a.limAdm.admit(ctx, class)
	if err != nil && class > 0 && (errors.Is(err, adaptive.ErrClassRefused) || err == errRefused) {
		inA, limA := a.l.InFlight(), a.l.Limit()
		a.mu.Lock()
		a.refusals++
		if inB < limB/2 && inA < limA/2 && inB+1 < limB/2 {
			a.suspicious++
			if len(a.examples) < 5 {
				a.examples = append(a.examples, time.Now().Format("05.000")+" c="+itoa(class)+" inflight "+itoa(int(inB))+"/"+itoa(int(inA))+" limit "+itoa(int(limB))+"/"+itoa(int(limA))+" err="+err.Error()[:30])
			}
		}
		a.mu.Unlock()
	}
	return done, err
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

type classCase struct {
	name  string
	C     float64
	loads []float64 // per class, fraction of what the backend serves
}

var classCases = []classCase{
	{"C32 c0 0.4x c1 0.8x c2 0.8x", 32, []float64{0.4, 0.8, 0.8}},
	{"C32 c0 0.9x c5 1.5x", 32, []float64{0.9, 0, 0, 0, 0, 1.5}},
	{"C32 c0 0.3x c1 3x", 32, []float64{0.3, 3}},
	{"C8 c0 0.4x c1 0.8x c2 0.8x", 8, []float64{0.4, 0.8, 0.8}},
	{"C32 low load c0..c5 0.1x each", 32, []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1}},
}

func TestClasses(t *testing.T) {
	needB8Run(t)
	for _, seed := range seeds() {
		for _, cc := range classCases {
			if f := getenv("B8_CASE"); f != "" && !contains(cc.name, f) {
				continue
			}
			for _, mode := range []string{"TryStart", "Start"} {
				synctest.Test(t, func(t *testing.T) {
					b := NewPS(cc.C)
					defer b.Close()
					l := adaptive.New(weighted.New(1), 20, &adaptive.Gradient{}, adaptive.WithRand(newSrc(seed)))
					adm := &classAdm{limAdm: limAdm{l: l, start: mode == "Start"}}
					var ss []*stream
					for c, ld := range cc.loads {
						if ld == 0 {
							continue
						}
						ss = append(ss, &stream{adm: adm, class: c, rate: ld * cc.C / 0.010, seed: seed*1000 + uint64(c)})
					}
					runOpen(b, runCfg{length: 30 * time.Second, warm: 5 * time.Second, deadline: 150 * time.Millisecond}, ss)
					span := 25.0
					serve := cc.C / 0.010
					rem := 1.0 // share of the backend left for this class under strict priority
					for _, s := range ss {
						ideal := math.Min(1, math.Max(0, rem)/(float64(s.rate)/serve))
						rem -= float64(s.rate) / serve
						t.Logf("seed %d %-30s %-8s class %d offered %.2fx: served %5.1f%% (strict priority ideal ~%3.0f%%) refused %5.1f%% timedout %4.1f%% goodput %.0f/s p99 %.2fx",
							seed, cc.name, mode, s.class, s.rate/serve, 100*float64(s.ok)/float64(s.arr), 100*ideal, 100*float64(s.refused)/float64(s.arr), 100*float64(s.timeout)/float64(s.arr), float64(s.ok)/span, quantile(s.lat, 0.99)/unloadedP99.Seconds())
					}
					med := medianPerSecond(ss[0].limits, 5*time.Second)
					t.Logf("   limit/s: %s", fmtSeries(med))
					t.Logf("   class refusals %d, of which refused with < half the limit in use: %d %v; Refused()=%d", adm.refusals, adm.suspicious, adm.examples, l.Refused())
				})
			}
		}
	}
}

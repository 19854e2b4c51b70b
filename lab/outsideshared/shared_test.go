package outsideshared

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// Two services, each behind its own Limiter, share one processor-sharing
// backend of capacity C (the docs: "a pool of workers shared with others").
type sharedCase struct {
	name   string
	C      float64
	loadA  float64 // as a fraction of what the backend serves
	loadB  float64
	bFrom  time.Duration
	length time.Duration
	warm   time.Duration
	alg    func() adaptive.Algorithm
}

type sharedRes struct {
	name       string
	okA, okB   int
	p99        float64
	medA, medB []float64
	span       float64
}

func runShared(t *testing.T, sc sharedCase, mode string, seed uint64, fixed int64) sharedRes {
	var res sharedRes
	synctest.Test(t, func(t *testing.T) {
		b := NewPS(sc.C)
		defer b.Close()
		serve := sc.C / 0.010
		mk := func(i uint64) admitter {
			if fixed > 0 {
				return newFixed(fixed)
			}
			l := adaptive.New(weighted.New(1), 20, sc.alg(), adaptive.WithRand(newSrc(seed*100+i)))
			return &limAdm{l: l, start: mode == "Start"}
		}
		A := &stream{name: "A", adm: mk(1), class: -1, rate: sc.loadA * serve, seed: seed*1000 + 1}
		B := &stream{name: "B", adm: mk(2), class: -1, rate: sc.loadB * serve, seed: seed*1000 + 2, from: sc.bFrom}
		runOpen(b, runCfg{length: sc.length, warm: sc.warm, deadline: 150 * time.Millisecond}, []*stream{A, B})
		res.okA, res.okB = A.ok, B.ok
		lat := append(append([]float64(nil), A.lat...), B.lat...)
		res.p99 = quantile(lat, 0.99)
		res.medA = medianPerSecond(A.limits, sc.warm)
		res.medB = medianPerSecond(B.limits, sc.warm)
		res.span = (sc.length - sc.warm).Seconds()
	})
	return res
}

var sharedCases = []sharedCase{
	{name: "C32 symmetric 1x+1x", C: 32, loadA: 1, loadB: 1, length: 30 * time.Second, warm: 5 * time.Second},
	{name: "C32 late-comer B@10s", C: 32, loadA: 1, loadB: 1, bFrom: 10 * time.Second, length: 40 * time.Second, warm: 15 * time.Second},
	{name: "C32 asym 0.5x+1.5x", C: 32, loadA: 0.5, loadB: 1.5, length: 30 * time.Second, warm: 5 * time.Second},
	{name: "C8 symmetric 1x+1x", C: 8, loadA: 1, loadB: 1, length: 30 * time.Second, warm: 5 * time.Second},
}

func algByName(n string) func() adaptive.Algorithm {
	switch n {
	case "AIMD":
		return func() adaptive.Algorithm { return &adaptive.AIMD{} }
	case "Vegas":
		return func() adaptive.Algorithm { return &adaptive.Vegas{} }
	}
	return func() adaptive.Algorithm { return &adaptive.Gradient{} }
}

func TestShared(t *testing.T) {
	needB8Run(t)
	algs := []string{"Gradient"}
	if a := getenv("B8_ALGS"); a != "" {
		algs = splitComma(a)
	}
	for _, seed := range seeds() {
		for _, sc0 := range sharedCases {
			if f := getenv("B8_CASE"); f != "" && !contains(sc0.name, f) {
				continue
			}
			// best fixed: pairs (k,k), k from 0.75 to 1.5 of C/2; p99 goal is a constraint
			best := 0
			var bestK int64
			var bestP float64
			for _, f := range []float64{0.75, 1, 1.25, 1.5} {
				k := int64(math.Round(f * sc0.C / 2))
				sc := sc0
				r := runShared(t, sc, "TryStart", seed, k)
				t.Logf("seed %d %s fixed %d+%d: goodput %.0f/s (A %d B %d) p99 %.2fx", seed, sc.name, k, k, float64(r.okA+r.okB)/r.span, r.okA, r.okB, r.p99/unloadedP99.Seconds())
				if r.okA+r.okB > best {
					best, bestK, bestP = r.okA+r.okB, k, r.p99
				}
			}
			_ = bestP
			for _, an := range algs {
				for _, mode := range []string{"TryStart", "Start"} {
					sc := sc0
					sc.alg = algByName(an)
					r := runShared(t, sc, mode, seed, 0)
					tot := r.okA + r.okB
					fair := float64(min(r.okA, r.okB)) / float64(max(r.okA, r.okB))
					// sum of per-second medians vs capacity
					worst := 0.0
					for i := range r.medA {
						if i < len(r.medB) {
							d := math.Abs(r.medA[i]+r.medB[i]-sc.C) / sc.C
							worst = max(worst, d)
						}
					}
					t.Logf("seed %d %-24s %-8s %-8s goodput %.0f%% of best fixed (%d+%d) | A:B = %d:%d (min/max %.2f; offered %.1f:%.1f) | p99 %.2fx unloaded | sum of limits' farthest from C %.0f%%",
						seed, sc.name, an, mode, 100*float64(tot)/float64(best), bestK, bestK, r.okA, r.okB, fair, sc.loadA, sc.loadB, r.p99/unloadedP99.Seconds(), 100*worst)
					t.Logf("   A limit/s: %s", fmtSeries(r.medA))
					t.Logf("   B limit/s: %s", fmtSeries(r.medB))
				}
			}
		}
	}
}

package outsideshared

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// TestClassDiag: the same arrivals as "C32 c0 0.4x c1 0.8x c2 0.8x" with
// (a) classes, (b) every request plain TryStart/Start (class -1), (c) every
// request class 0 via TryStartClass; records the windows Gradient saw.
func TestClassDiag(t *testing.T) {
	needB8Run(t)
	seed := seeds()[0]
	mode := getenv("B8_MODE")
	if mode == "" {
		mode = "TryStart"
	}
	for _, variant := range []string{"classes 0,1,2", "all plain", "all class 0", "classes 0,1 only"} {
		synctest.Test(t, func(t *testing.T) {
			b := NewPS(32)
			defer b.Close()
			rec := &recAlg{inner: &adaptive.Gradient{}}
			l := adaptive.New(weighted.New(1), 20, rec, adaptive.WithRand(newSrc(seed)))
			adm := &limAdm{l: l, start: mode == "Start"}
			cls := []int{0, 1, 2}
			switch variant {
			case "all plain":
				cls = []int{-1, -1, -1}
			case "all class 0":
				cls = []int{0, 0, 0}
			case "classes 0,1 only":
				cls = []int{0, 1, 1}
			}
			var ss []*stream
			for i, ld := range []float64{0.4, 0.8, 0.8} {
				ss = append(ss, &stream{adm: adm, class: cls[i], rate: ld * 3200, seed: seed*1000 + uint64(i)})
			}
			t0 := time.Now()
			runOpen(b, runCfg{length: 30 * time.Second, warm: 5 * time.Second, deadline: 150 * time.Millisecond}, ss)
			tot := 0
			for _, s := range ss {
				tot += s.ok
			}
			t.Logf("%s %-18s total goodput %.0f/s (backend serves 3200/s); stream0 served %.1f%%", mode, variant, float64(tot)/25, 100*float64(ss[0].ok)/float64(ss[0].arr))
			t.Logf("   limit/s: %s", fmtSeries(medianPerSecond(ss[0].limits, 5*time.Second)))
			var lo, nlo time.Duration = time.Hour, time.Hour
			for _, w := range rec.wins {
				if w.w.MinRTT > 0 && w.w.MinRTT < lo {
					lo = w.w.MinRTT
				}
				if w.w.NoLoadRTT > 0 && w.w.NoLoadRTT < nlo {
					nlo = w.w.NoLoadRTT
				}
			}
			t.Logf("   lowest Window.MinRTT %v, lowest NoLoadRTT %v (no request can take under 8ms on this backend)", lo, nlo)
			if getenv("B8_WIN") != "" {
				for _, w := range rec.wins {
					at := w.at.Sub(t0)
					if at > 5*time.Second && at < 16*time.Second {
						t.Logf("   %6.3fs lim %.1f infl %d samp %d drops %d min %v mean %v noload %v noloadMean %v -> %.1f", at.Seconds(), w.w.Limit, w.w.InFlight, w.w.Samples, w.w.Drops, w.w.MinRTT, w.w.MeanRTT, w.w.NoLoadRTT, w.w.NoLoadMeanRTT, w.nx)
					}
				}
			}
		})
	}
}

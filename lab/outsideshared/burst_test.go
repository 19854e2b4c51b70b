package outsideshared

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// TestLowThenBurst: 40 s at 0.6x of a C=32 backend spread over six priority
// classes (0.1x each), then 10 s at 2.4x (0.4x each). With classes, refusals
// of the low classes at low load mark windows as limit-bound and the limit
// climbs; when the burst comes, how far above the capacity is it, and what
// does it cost? Compared with the same arrivals through plain TryStart/Start
// and with fixed sizes.
func TestLowThenBurst(t *testing.T) {
	needB8Run(t)
	const C = 32.0
	jump := 40 * time.Second
	length := 50 * time.Second
	for _, seed := range seeds() {
		for _, v := range []string{"fixed 32", "fixed 40", "plain TryStart", "classes TryStart", "plain Start", "classes Start"} {
			synctest.Test(t, func(t *testing.T) {
				b := NewPS(C)
				defer b.Close()
				var adm admitter
				cls := -1
				switch v {
				case "fixed 32":
					adm = newFixed(32)
				case "fixed 40":
					adm = newFixed(40)
				default:
					l := adaptive.New(weighted.New(1), 20, &adaptive.Gradient{}, adaptive.WithRand(newSrc(seed)))
					adm = &limAdm{l: l, start: contains(v, "Start") && !contains(v, "TryStart")}
				}
				var ss []*stream
				for c := 0; c < 6; c++ {
					if contains(v, "classes") {
						cls = c
					}
					ss = append(ss, &stream{adm: adm, class: cls, seed: seed*1000 + uint64(c),
						rateFn: func(el time.Duration) float64 {
							if el < jump {
								return 0.1 * C / 0.010
							}
							return 0.4 * C / 0.010
						}})
				}
				// measure from the jump on
				runOpen(b, runCfg{length: length, warm: jump, deadline: 150 * time.Millisecond}, ss)
				ok, arr := 0, 0
				var lat []float64
				c0ok, c0arr := ss[0].ok, ss[0].arr
				for _, s := range ss {
					ok += s.ok
					arr += s.arr
					lat = append(lat, s.lat...)
				}
				lims := medianPerSecond(ss[0].limits, 35*time.Second)
				t.Logf("seed %d %-17s after the jump: goodput %.0f/s (backend serves 3200/s), served %.1f%%, stream0 served %.1f%%, p99 %.2fx unloaded | limit/s from 35 s: %s",
					seed, v, float64(ok)/10, 100*float64(ok)/float64(arr), 100*float64(c0ok)/float64(c0arr), quantile(lat, 0.99)/unloadedP99.Seconds(), fmtSeries(lims))
			})
		}
	}
}

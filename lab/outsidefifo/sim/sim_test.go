package sim

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func Scenarios() []Scenario {
	var out []Scenario
	base := func(name string, s Shape, c int, load float64) Scenario {
		return Scenario{Name: name, Shape: s, C: c, Load: load, Length: 30 * time.Second, Deadline: 150 * time.Millisecond, MeasureFrom: 5 * time.Second}
	}
	for _, s := range Shapes {
		for _, c := range []int{2, 8, 32} {
			out = append(out, base(fmt.Sprintf("steady 2x c%d %s", c, s), s, c, 2))
		}
		out = append(out, base(fmt.Sprintf("steady 3x c8 %s", s), s, 8, 3))
		out = append(out, base(fmt.Sprintf("steady 1.5x c32 %s", s), s, 32, 1.5))
		for _, st := range []float64{1.15, 2} {
			for _, c := range []int{8, 32} {
				sc := base(fmt.Sprintf("step x%g c%d %s", st, c, s), s, c, 2)
				sc.Step, sc.StepAt, sc.MeasureFrom = st, 10*time.Second, 20*time.Second
				out = append(out, sc)
			}
		}
		for _, c := range []int{8, 32} {
			sc := base(fmt.Sprintf("burst 0.5x/3x c%d %s", c, s), s, c, 3)
			sc.Burst, sc.Length = true, 40*time.Second
			out = append(out, sc)
		}
	}
	return out
}

type Line struct {
	Scenario string
	Seed     uint64
	Name     string
	Fixed    int64
	Wait     bool
	Unloaded time.Duration
	Result
}

var outMu sync.Mutex

// TestSim runs scenarios whose name contains SIM_FILTER (all if empty) at
// seeds SIM_SEEDS (default 1-5), appending JSON lines to SIM_OUT.
func TestSim(t *testing.T) {
	outPath := os.Getenv("SIM_OUT")
	if outPath == "" {
		t.Skip("set SIM_OUT")
	}
	f, err := os.OpenFile(outPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	seeds := []uint64{1, 2, 3, 4, 5}
	if s := os.Getenv("SIM_SEEDS"); s != "" {
		seeds = nil
		for _, x := range strings.Split(s, ",") {
			v, _ := strconv.ParseUint(x, 10, 64)
			seeds = append(seeds, v)
		}
	}
	filt := os.Getenv("SIM_FILTER")
	for _, sc := range Scenarios() {
		if filt != "" && !strings.Contains(sc.Name, filt) {
			continue
		}
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/seed%d", sc.Name, seed), func(t *testing.T) {
				t.Parallel()
				tr := Trace(sc, seed)
				unl := UnloadedP99(sc.Shape, seed)
				if sc.Step > 0 {
					unl = time.Duration(float64(unl) * sc.Step)
				}
				var cs []Contender
				for _, k := range FixedSizes(sc.C) {
					cs = append(cs, Contender{Name: "fixed", Fixed: k})
				}
				for _, a := range []string{"AIMD", "Vegas", "Gradient"} {
					cs = append(cs, Contender{Name: a}, Contender{Name: a, Wait: true})
				}
				for _, c := range cs {
					var r Result
					synctest.Test(t, func(t *testing.T) { r = Run(sc, tr, c, seed) })
					b, _ := json.Marshal(Line{sc.Name, seed, c.Name, c.Fixed, c.Wait, unl, r})
					outMu.Lock()
					f.Write(append(b, '\n'))
					outMu.Unlock()
				}
			})
		}
	}
}

func TestOne(t *testing.T) {
	sc := Scenarios()[1]
	tr := Trace(sc, 1)
	for _, c := range []Contender{{Name: "fixed", Fixed: 8}, {Name: "Gradient"}, {Name: "Gradient", Wait: true}} {
		start := time.Now()
		var r Result
		synctest.Test(t, func(t *testing.T) { r = Run(sc, tr, c, 1) })
		t.Logf("%s %v %+v unl=%v wall=%v n=%d", sc.Name, c, r, UnloadedP99(sc.Shape, 1), time.Since(start), len(tr))
	}
}

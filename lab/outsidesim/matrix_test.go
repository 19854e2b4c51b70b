package outsidesim

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func Scenarios() []Scenario {
	var s []Scenario
	s = append(s,
		Scenario{Name: "overload 1.5× C32", C: 32, Load: 1.5},
		Scenario{Name: "overload 3× C32", C: 32, Load: 3},
		Scenario{Name: "step ×1.15 C32", C: 32, Load: 2, Step: 1.15, StepAt: 10 * time.Second},
		Scenario{Name: "step ×2 C32", C: 32, Load: 2, Step: 2, StepAt: 10 * time.Second},
		Scenario{Name: "step ×2 C8", C: 8, Load: 2, Step: 2, StepAt: 10 * time.Second},
		Scenario{Name: "step ×1.15 C2", C: 2, Load: 2, Step: 1.15, StepAt: 10 * time.Second},
		Scenario{Name: "step ×2 C2", C: 2, Load: 2, Step: 2, StepAt: 10 * time.Second},
	)
	for _, c := range []int{2, 8, 32} {
		for _, sh := range []Shape{U20, Exp, Bimodal, LogNormal} {
			s = append(s, Scenario{Name: fmt.Sprintf("%s C%d", sh, c), C: c, Load: 2, Shape: sh})
		}
	}
	s = append(s, Scenario{Name: "pareto α1.5 C32", C: 32, Load: 2, Shape: Pareto})
	for i := range s {
		s[i] = s[i].norm()
	}
	return s
}

func fixedSizes(c int) []int64 {
	switch c {
	case 2:
		return []int64{1, 2, 3, 4, 5, 6}
	case 8:
		return []int64{4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16}
	}
	var out []int64
	for _, f := range []float64{0.5, 0.625, 0.75, 0.875, 1, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 2} {
		out = append(out, int64(math.Round(f*float64(c))))
	}
	return out
}

func seeds() []uint64 {
	if v := os.Getenv("B6_SEEDS"); v != "" {
		var out []uint64
		for _, f := range strings.Split(v, ",") {
			x, _ := strconv.ParseUint(f, 10, 64)
			out = append(out, x)
		}
		return out
	}
	return []uint64{1, 2, 3, 4, 5}
}

type Row struct {
	Scen, Cont, Mode string
	Seed             uint64
	VsFixed, P99     float64
	VsPeer           float64
	BestFixed        int64
	DriftC, DriftBF  float64
	Res              Result
}

var (
	rowsMu sync.Mutex
	rows   []Row
)

type fixedOut struct {
	size int64
	r    Result
}

// BestFixed sweeps fixed sizes (TryAcquire) on the trace; best is the most
// goodput among sizes with p99 within 1.5x unloaded.
func BestFixed(t *testing.T, sc Scenario, tr *Trace) (best fixedOut, all []fixedOut) {
	for _, sz := range fixedSizes(sc.C) {
		r := Run(t, sc, tr, Contender{Kind: KFixed, Fixed: sz}, 0)
		all = append(all, fixedOut{sz, r})
	}
	for _, f := range all {
		if f.r.P99Ratio <= 1.5 && f.r.Goodput > best.r.Goodput {
			best = f
		}
	}
	if best.size == 0 {
		for _, f := range all {
			if f.r.Goodput > best.r.Goodput {
				best = f
			}
		}
	}
	return
}

// TestMatrix runs every scenario at every seed (B6_MATRIX=1 to run; it
// takes minutes) and writes results.md.
func TestMatrix(t *testing.T) {
	if os.Getenv("B6_MATRIX") == "" {
		t.Skip("set B6_MATRIX=1")
	}
	filter := regexp.MustCompile(os.Getenv("B6_SCEN"))
	algs := []string{"AIMD", "Vegas", "Gradient"}
	if v := os.Getenv("B6_ALGS"); v == "-" {
		algs = nil
	} else if v != "" {
		algs = strings.Split(v, ",")
	}
	t.Run("g", func(t *testing.T) {
		for _, sc := range Scenarios() {
			if !filter.MatchString(sc.Name) {
				continue
			}
			for _, seed := range seeds() {
				t.Run(fmt.Sprintf("%s/seed%d", sc.Name, seed), func(t *testing.T) {
					t.Parallel()
					runOne(t, sc, seed, algs)
				})
			}
		}
	})
	writeReport(t)
}

// TestLong: 600 s at 2x a capacity of 32 (B6_LONG=1 to run).
func TestLong(t *testing.T) {
	if os.Getenv("B6_LONG") == "" {
		t.Skip("set B6_LONG=1")
	}
	algs := []string{"AIMD", "Vegas", "Gradient"}
	if v := os.Getenv("B6_ALGS"); v != "" {
		algs = strings.Split(v, ",")
	}
	sc := Scenario{Name: "600 s at 2× C32", C: 32, Load: 2, Length: 600 * time.Second}.norm()
	t.Run("g", func(t *testing.T) {
		for _, seed := range seeds() {
			t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
				t.Parallel()
				runOne(t, sc, seed, algs)
			})
		}
	})
	if os.Getenv("B6_OUT") == "" {
		os.Setenv("B6_OUT", "results-long.md")
	}
	writeReport(t)
}

func runOne(t *testing.T, sc Scenario, seed uint64, algs []string) {
	start := time.Now()
	tr := GenTrace(sc, seed)
	best, all := BestFixed(t, sc, tr)
	var fsline string
	for _, f := range all {
		fsline += fmt.Sprintf(" %d:%.0f/%.2f", f.size, f.r.Goodput, f.r.P99Ratio)
	}
	t.Logf("[%s seed %d] fixed sweep (size:goodput/p99ratio):%s best=%d", sc.Name, seed, fsline, best.size)
	peer := Run(t, sc, tr, Contender{Kind: KFailsafe}, seed)
	add := func(name, mode string, r Result) {
		row := Row{Scen: sc.Name, Cont: name, Mode: mode, Seed: seed,
			VsFixed: r.Goodput / best.r.Goodput, P99: r.P99Ratio,
			VsPeer: r.Goodput / peer.Goodput, BestFixed: best.size, Res: r,
			DriftC: r.FarthestFrom(float64(sc.C), 0), DriftBF: r.FarthestFrom(float64(best.size), 5)}
		rowsMu.Lock()
		rows = append(rows, row)
		rowsMu.Unlock()
		t.Logf("[%s seed %d] %-9s %-8s goodput %.3f of fixed(%d) %.3f of peer p99 %.2fx drift vs C %.0f%% vs best fixed(after 5 s) %.0f%% refused %d errs %v chainErr %d boundErr %d late %d changes %d endLimit %d",
			sc.Name, seed, name, mode, row.VsFixed, best.size, row.VsPeer, r.P99Ratio, 100*row.DriftC, 100*row.DriftBF, r.Refused, r.ErrKinds, r.ChainErrs, r.BoundErrs, r.LateGrants, r.Changes, r.EndLimit)
	}
	add("best fixed", "TryStart", best.r)
	add("failsafe", "TryStart", peer)
	for _, a := range algs {
		for _, m := range []Mode{Try, Wait} {
			r := Run(t, sc, tr, Contender{Kind: KAdaptive, Alg: a, Mode: m}, seed)
			add(a, m.String(), r)
		}
	}
	t.Logf("took %v", time.Since(start))
}

func med(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func writeReport(t *testing.T) {
	type key struct{ s, c, m string }
	groups := map[key][]Row{}
	var order []key
	for _, r := range rows {
		k := key{r.Scen, r.Cont, r.Mode}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	scOrder := map[string]int{}
	for i, s := range Scenarios() {
		scOrder[s.Name] = i
	}
	contOrder := map[string]int{"best fixed": 0, "failsafe": 1, "AIMD": 2, "Vegas": 3, "Gradient": 4}
	slices.SortFunc(order, func(a, b key) int {
		if d := scOrder[a.s] - scOrder[b.s]; d != 0 {
			return d
		}
		if d := contOrder[a.c] - contOrder[b.c]; d != 0 {
			return d
		}
		return strings.Compare(b.m, a.m)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "| scenario | contender | mode | goodput/best fixed med | worst | goodput/failsafe med | worst | p99/unloaded med | worst | limit drift from C (max 1-s median) med | drift from best fixed, after 5 s, med | worst | best fixed sizes | seeds <0.9 fixed | seeds p99>1.5 | seeds < failsafe |\n")
	fmt.Fprintf(&b, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|\n")
	for _, k := range order {
		g := groups[k]
		slices.SortFunc(g, func(a, b Row) int { return int(a.Seed) - int(b.Seed) })
		var vf, vp, p9, dr, db []float64
		var sizes []string
		var missG, missP, missPeer []string
		for _, r := range g {
			vf = append(vf, r.VsFixed)
			vp = append(vp, r.VsPeer)
			p9 = append(p9, r.P99)
			dr = append(dr, r.DriftC)
			db = append(db, r.DriftBF)
			sizes = append(sizes, strconv.FormatInt(r.BestFixed, 10))
			sd := strconv.FormatUint(r.Seed, 10)
			if r.VsFixed < 0.9 {
				missG = append(missG, sd)
			}
			if r.P99 > 1.5 || r.P99 == 0 {
				missP = append(missP, sd)
			}
			if r.VsPeer < 1 {
				missPeer = append(missPeer, sd)
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.2f× | %.2f× | %.0f%% | %.0f%% | %.0f%% | %s | %s | %s | %s |\n",
			k.s, k.c, k.m, 100*med(vf), 100*slices.Min(vf), 100*med(vp), 100*slices.Min(vp), med(p9), slices.Max(p9), 100*med(dr), 100*med(db), 100*slices.Max(db),
			strings.Join(sizes, ","), orNone(missG), orNone(missP), orNone(missPeer))
	}
	out := os.Getenv("B6_OUT")
	if out == "" {
		out = "results.md"
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}

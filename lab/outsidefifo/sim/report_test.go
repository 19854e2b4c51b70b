package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
)

type key struct {
	sc   string
	seed uint64
}

// TestReport reads SIM_OUT and prints the markdown table to SIM_TABLE (or stdout).
func TestReport(t *testing.T) {
	in := os.Getenv("SIM_OUT")
	if in == "" {
		t.Skip("set SIM_OUT")
	}
	f, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fixed := map[key][]Line{}
	algs := map[key][]Line{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l Line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		k := key{l.Scenario, l.Seed}
		if l.Name == "fixed" {
			fixed[k] = append(fixed[k], l)
		} else {
			algs[k] = append(algs[k], l)
		}
	}
	type agg struct {
		gp, p99 []float64
		seeds   []uint64
		lim     []float64
	}
	rows := map[string]*agg{}
	bestInfo := map[string][]string{}
	for k, ls := range algs {
		var best, top Line
		for _, fx := range fixed[k] {
			if float64(fx.P99) <= 1.5*float64(fx.Unloaded) && fx.Goodput > best.Goodput {
				best = fx
			}
			if fx.Goodput > top.Goodput {
				top = fx
			}
		}
		if best.Goodput == 0 {
			continue
		}
		bestInfo[k.sc] = append(bestInfo[k.sc], fmt.Sprintf("s%d:%d(%.2f×,max %d@%.0f%%)", k.seed, best.Fixed, float64(best.P99)/float64(best.Unloaded), top.Fixed, 100*top.Goodput/best.Goodput))
		for _, l := range ls {
			mode := "TryStart"
			if l.Wait {
				mode = "Start"
			}
			rk := k.sc + "|" + l.Name + "|" + mode
			a := rows[rk]
			if a == nil {
				a = &agg{}
				rows[rk] = a
			}
			a.gp = append(a.gp, l.Goodput/best.Goodput)
			a.p99 = append(a.p99, float64(l.P99)/float64(l.Unloaded))
			a.seeds = append(a.seeds, k.seed)
			a.lim = append(a.lim, l.LimitMed)
		}
	}
	var keys []string
	for k := range rows {
		keys = append(keys, k)
	}
	order := map[string]int{}
	for i, s := range Scenarios() {
		order[s.Name] = i
	}
	algOrder := map[string]int{"AIMD": 0, "Vegas": 1, "Gradient": 2}
	sort.Slice(keys, func(i, j int) bool {
		a, b := strings.Split(keys[i], "|"), strings.Split(keys[j], "|")
		if order[a[0]] != order[b[0]] {
			return order[a[0]] < order[b[0]]
		}
		if a[1] != b[1] {
			return algOrder[a[1]] < algOrder[b[1]]
		}
		return a[2] > b[2]
	})
	out := os.Stdout
	if p := os.Getenv("SIM_TABLE"); p != "" {
		out, _ = os.Create(p)
		defer out.Close()
	}
	fmt.Fprintln(out, "| scenario | alg | mode | n | goodput/best fixed med | worst | p99/unloaded med | worst | limit med | seeds < 0.9 goodput | seeds > 1.5× p99 |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|---|---|---|")
	med := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		if len(s)%2 == 1 {
			return s[len(s)/2]
		}
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	last := ""
	for _, k := range keys {
		a := rows[k]
		p := strings.Split(k, "|")
		if p[0] != last {
			last = p[0]
		}
		wg, wp := 9.0, 0.0
		var mg, mp []string
		idx := make([]int, len(a.seeds))
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(i, j int) bool { return a.seeds[idx[i]] < a.seeds[idx[j]] })
		for _, i := range idx {
			wg = min(wg, a.gp[i])
			wp = max(wp, a.p99[i])
			if a.gp[i] < 0.9 {
				mg = append(mg, fmt.Sprint(a.seeds[i]))
			}
			if a.p99[i] > 1.5 {
				mp = append(mp, fmt.Sprint(a.seeds[i]))
			}
		}
		j := func(s []string) string {
			if len(s) == 0 {
				return "none"
			}
			return strings.Join(s, ",")
		}
		fmt.Fprintf(out, "| %s | %s | %s | %d | %.0f%% | %.0f%% | %.2f× | %.2f× | %.0f | %s | %s |\n", p[0], p[1], p[2], len(a.seeds), 100*med(a.gp), 100*wg, med(a.p99), wp, med(a.lim), j(mg), j(mp))
	}
	fmt.Fprintln(out, "\nBest fixed size per seed (its p99/unloaded; the size with the most goodput at any p99 and its goodput vs the best p99-feasible):")
	var scs []string
	for s := range bestInfo {
		scs = append(scs, s)
	}
	sort.Slice(scs, func(i, j int) bool { return order[scs[i]] < order[scs[j]] })
	for _, s := range scs {
		b := bestInfo[s]
		sort.Strings(b)
		fmt.Fprintf(out, "- %s: %s\n", s, strings.Join(b, " "))
	}
}

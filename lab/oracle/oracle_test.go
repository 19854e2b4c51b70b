package oracle

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// envMode selects the long run: SEMACAT_ORACLE=long. envHistories, if set,
// is the number of histories per strategy, in either run.
const (
	envMode      = "SEMACAT_ORACLE"
	envHistories = "SEMACAT_ORACLE_HISTORIES"
)

// config is the short run by default (a few seconds in all, for every
// `make test`), or the long one when SEMACAT_ORACLE=long.
func config(t *testing.T) Config {
	cfg := Config{Histories: 150, Workers: 3, Ops: 8, MaxSize: 3, Seed: 1}
	if os.Getenv(envMode) == "long" {
		cfg = Config{Histories: 3000, Workers: 4, Ops: 10, MaxSize: 3, Seed: 1}
	}
	if v := os.Getenv(envHistories); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("%s=%q: want a positive number of histories", envHistories, v)
		}
		cfg.Histories = n
	}
	return cfg
}

// strategies are the local strategies, and x/sync's Weighted as a foil: it
// is checked and reported, never required to pass.
var strategies = []struct {
	name   string
	newSem NewFunc
	foil   bool
}{
	{"chansem", func(n int64) sem.Semaphore { return chansem.New(n) }, false},
	{"condsem", func(n int64) sem.Semaphore { return condsem.New(n) }, false},
	{"condsem/fair", func(n int64) sem.Semaphore { return condsem.NewFair(n) }, false},
	{"weighted", func(n int64) sem.Semaphore { return weighted.New(n) }, false},
	{"spinsem", func(n int64) sem.Semaphore { return spinsem.New(n) }, false},
	{"x/sync", func(n int64) sem.Semaphore { return semaphore.NewWeighted(n) }, true},
}

// Every local strategy's histories are linearizable with respect to the
// contract. The report has one row per strategy.
func TestStrategies(t *testing.T) {
	cfg := config(t)
	var report strings.Builder
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			tally := Check(st.newSem, cfg)
			fmt.Fprintf(&report, "\t%-13s %s\n", st.name, tally)
			if tally.Example != "" {
				t.Logf("first failing %s", tally.Example)
			}
			if st.foil {
				return
			}
			assert.Zero(t, tally.Not, "histories that are not linearizable")
			assert.Zero(t, tally.Hung, "histories whose calls never returned")
		})
	}
	t.Logf("%d histories per strategy, %d goroutines of %d calls each (set %s=long, or %s, for more):\n%s",
		cfg.Histories, cfg.Workers, cfg.Ops, envMode, envHistories, report.String())
}

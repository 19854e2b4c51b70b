package benchmarks_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/benchmarks"
)

// tokens is the semaphore under test: a channel of tokens, one permit
// per request. Put your own implementation in its place.
type tokens chan struct{}

func (t tokens) Acquire(ctx context.Context, _ int64) error {
	select {
	case t <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t tokens) TryAcquire(int64) bool {
	select {
	case t <- struct{}{}:
		return true
	default:
		return false
	}
}

func (t tokens) Release(int64) { <-t }

// raceTokens belongs in a _test.go file of yours, named BenchmarkRace so
// that go test -bench finds it.
func raceTokens(b *testing.B) {
	benchmarks.Race(b, benchmarks.Contender{
		Name:     "tokens",
		New:      func(size int64) sem.Semaphore { return make(tokens, size) },
		UnitOnly: true, // it takes one permit per request
	})
}

// Race your own semaphore against the catalog from a benchmark of yours,
// then compare with benchstat: x/sync races first, so it is the first
// column, the base of every ratio:
//
//	go test -run '^$' -bench Race -count 6 >race.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl race.txt
//
// SEMACAT_IMPL=tokens races yours against the references only, and
// semabench reports the output with its tables and charts:
//
//	go run github.com/semacat/sem/benchmarks/semabench@latest -from race.txt -out race
func Example_race() {
	_ = raceTokens
}

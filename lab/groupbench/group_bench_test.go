package groupbench

import (
	"context"
	"fmt"
	"testing"

	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/group"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

// groupContenders are the ways to run tasks with at most limit of them at
// once, wait for all and stop at the first error: errgroup with SetLimit
// and conc's context pool (the references), and package group on three
// strategies. Each op submits one task, a closure as in real code, and at
// the end of the run the contender waits for them all; the task does
// nothing, so that only the machinery is measured.
var groupContenders = []struct {
	name string
	run  func(b *testing.B, limit int, task func(context.Context) error)
}{
	{"errgroup", func(b *testing.B, limit int, task func(context.Context) error) {
		g, ctx := errgroup.WithContext(context.Background())
		g.SetLimit(limit)
		for b.Loop() {
			g.Go(func() error { return task(ctx) })
		}
		check(b, g.Wait())
	}},
	{"conc", func(b *testing.B, limit int, task func(context.Context) error) {
		p := pool.New().WithMaxGoroutines(limit).WithContext(context.Background())
		for b.Loop() {
			p.Go(func(ctx context.Context) error { return task(ctx) })
		}
		check(b, p.Wait())
	}},
	{"group-chansem", groupOn(func(n int64) sem.Semaphore { return chansem.New(n) })},
	{"group-weighted", groupOn(func(n int64) sem.Semaphore { return weighted.New(n) })},
	{"group-spinsem", groupOn(func(n int64) sem.Semaphore { return spinsem.New(n) })},
}

// groupOn runs the tasks with package group on a semaphore made by newSem.
func groupOn(newSem func(int64) sem.Semaphore) func(*testing.B, int, func(context.Context) error) {
	return func(b *testing.B, limit int, task func(context.Context) error) {
		g, ctx := group.WithContext(context.Background(), newSem(int64(limit)))
		for b.Loop() {
			g.Go(1, func() error { return task(ctx) })
		}
		check(b, g.Wait())
	}
}

func check(b *testing.B, err error) {
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkGroup measures the cost per task of running tasks under a limit
// and waiting for them, for package group against errgroup.SetLimit and
// conc's pool. errgroup and group start a goroutine per task; conc keeps up
// to limit workers and hands them tasks, so it allocates no goroutine per
// task. Compare with `benchstat -col /impl`.
func BenchmarkGroup(b *testing.B) {
	task := func(context.Context) error { return nil }
	for _, limit := range []int{1, 8, 64} {
		for _, c := range groupContenders {
			b.Run(fmt.Sprintf("limit=%d/impl=%s", limit, c.name), func(b *testing.B) {
				b.ReportAllocs()
				c.run(b, limit, task)
			})
		}
	}
}

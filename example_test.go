package sem_test

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

// newLimiter picks a strategy by name. Everything else in the program sees
// only sem.Semaphore, so trying another strategy is a one-line change.
func newLimiter(strategy string, size int64) sem.Semaphore {
	switch strategy {
	case "chansem":
		return chansem.New(size)
	case "condsem":
		return condsem.New(size)
	case "condsem-fair":
		return condsem.NewFair(size)
	case "weighted":
		return weighted.New(size)
	case "spinsem":
		return spinsem.New(size)
	case "x/sync":
		return semaphore.NewWeighted(size)
	default:
		panic("unknown strategy " + strategy)
	}
}

// runAll runs the jobs, at most size at once, and returns when all are done.
func runAll(ctx context.Context, s sem.Semaphore, size int64, jobs []func()) error {
	for _, job := range jobs {
		if err := s.Acquire(ctx, 1); err != nil {
			return err
		}
		go func() {
			defer s.Release(1)
			job()
		}()
	}
	// Holding every permit means every job has released its own.
	if err := s.Acquire(ctx, size); err != nil {
		return err
	}
	s.Release(size)
	return nil
}

// Code written against sem.Semaphore runs on any strategy, and on
// golang.org/x/sync/semaphore.Weighted, which has the same method set.
func Example() {
	for _, strategy := range []string{"chansem", "condsem", "condsem-fair", "weighted", "spinsem", "x/sync"} {
		results := make([]int, 5)
		jobs := make([]func(), len(results))
		for i := range jobs {
			jobs[i] = func() { results[i] = i * 10 }
		}
		err := runAll(context.Background(), newLimiter(strategy, 2), 2, jobs)
		fmt.Println(strategy, results, err)
	}
	// Output:
	// chansem [0 10 20 30 40] <nil>
	// condsem [0 10 20 30 40] <nil>
	// condsem-fair [0 10 20 30 40] <nil>
	// weighted [0 10 20 30 40] <nil>
	// spinsem [0 10 20 30 40] <nil>
	// x/sync [0 10 20 30 40] <nil>
}

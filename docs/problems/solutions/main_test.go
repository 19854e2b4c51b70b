package solutions_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/solutions"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// seeds is how many runs each checker makes of a solution. Seed 0 moves
// every goroutine in lockstep; the others vary the timing.
const seeds = 10

// startFull wraps a constructor so that every semaphore starts with all
// its permits free: the wrong initial value, for the wrong solutions that
// only get it wrong.
func startFull(newSemaphore solutions.NewSemaphore) solutions.NewSemaphore {
	return func(size, _ int64) sem.Semaphore { return newSemaphore(size, size) }
}

// name numbers the goroutines of one kind.
func name(kind string, i int) string { return fmt.Sprintf("%s %d", kind, i) }

// countKind counts the names that begin with kind.
func countKind(names []string, kind string) int {
	n := 0
	for _, name := range names {
		if strings.HasPrefix(name, kind) {
			n++
		}
	}
	return n
}

// each runs f for i in [0, n), stopping at the first error.
func each(n int, f func(i int) error) error {
	for i := range n {
		if err := f(i); err != nil {
			return err
		}
	}
	return nil
}

// waitFn is a method that waits.
type waitFn = func(ctx context.Context) error

package solutions_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(tableWriter{m})
}

// tableWriter writes the checkers' table once the tests have run, when
// CHECK_TABLE asks for it.
type tableWriter struct{ m *testing.M }

func (w tableWriter) Run() int {
	code := w.m.Run()
	if err := writeTable(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return code
}

// startFull wraps a constructor so that every semaphore starts with all
// its permits free: the wrong initial value, for the wrong solutions that
// only get it wrong.
func startFull(newSemaphore check.NewSemaphore) check.NewSemaphore {
	return func(size, _ int64) sem.Semaphore { return newSemaphore(size, size) }
}

// official names the book's solution to a problem, first of its right
// answers; alternates are right answers written differently.
func official[S any](solution S, alternates ...check.Right[S]) []check.Right[S] {
	return append([]check.Right[S]{{Name: "Official", Solution: solution}}, alternates...)
}

// remade wraps a constructor so that the k-th semaphore it builds (from 1)
// has size permits of which available are free instead: a wrong answer
// that differs from the book's by one semaphore.
func remade(newSemaphore check.NewSemaphore, k int, size, available int64) check.NewSemaphore {
	made := 0
	return func(s, a int64) sem.Semaphore {
		if made++; made == k {
			s, a = size, available
		}
		return newSemaphore(s, a)
	}
}

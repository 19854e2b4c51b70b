package semtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/semacat/sem"
)

// testBadInput checks the programmer errors: a size below 1, a negative
// weight, and releasing more than is held (see overrelease.go). Each must
// panic with a message naming the package, and change nothing.
func (c *config) testBadInput(t *testing.T) {
	run(t, "New", func(t *testing.T) {
		if c.pkg == "" {
			t.Log("the package name is unknown (New(1) failed, or its type has no package); set it with WithPackageName")
		}
		for _, size := range []int64{0, -1, -1 << 63} {
			expectPanic(t, fmt.Sprintf("New(%d)", size), func() { c.newSem(size) }, fmt.Sprint(size), c.pkg)
		}
	})
	methods := []struct {
		name string
		call func(s sem.Semaphore, n int64)
	}{
		{"Acquire", func(s sem.Semaphore, n int64) { _ = s.Acquire(context.Background(), n) }},
		{"TryAcquire", func(s sem.Semaphore, n int64) { s.TryAcquire(n) }},
		{"Release", func(s sem.Semaphore, n int64) { s.Release(n) }},
	}
	for _, m := range methods {
		run(t, "NegativeWeight/"+m.name, func(t *testing.T) {
			s := c.newHeld(t, 3, 1)
			for _, n := range []int64{-1, -1 << 63} {
				expectPanic(t, fmt.Sprintf("%s(%d)", m.name, n), func() { m.call(s, n) }, m.name, fmt.Sprint(n), c.pkg)
			}
			expectFree(t, s, 3, 2, "after the panics")
			release(t, s, 1, "after the panics")
		})
	}
	run(t, "OverRelease", c.testOverRelease)
}

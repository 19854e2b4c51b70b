package semtest

import (
	"context"
	"testing"
)

// testLiveness checks that no wake-up is lost: every Release serves the
// waiters its permits let through.
func (c *config) testLiveness(t *testing.T) {
	run(t, "EachReleaseWakesOne", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			const n = 5
			s := sc.newHeld(1, 1)
			ws := make([]*waiter, n)
			for i := range ws {
				ws[i] = sc.goAcquire(context.Background(), s, 1)
			}
			sc.settle()
			s.Release(1) // the test's permit
			for round := 1; ; round++ {
				sc.settle()
				if got := len(served(ws)); got != round {
					t.Errorf("after release %d, %d waiters were served; want %d (a lost wake-up)", round, got, round)
					break
				}
				if round == n {
					break
				}
				for _, w := range ws {
					if w.release(s) {
						break
					}
				}
			}
		})
	})
	run(t, "ReleaseWakesAllThatFit", func(t *testing.T) {
		c.bubble(t, func(t *testing.T, sc *scene) {
			s := sc.newHeld(4, 4)
			ws := []*waiter{
				sc.goAcquire(context.Background(), s, 1),
				sc.goAcquire(context.Background(), s, 2),
				sc.goAcquire(context.Background(), s, 1),
			}
			sc.settle()
			s.Release(4)
			sc.settle()
			for i, w := range ws {
				if !w.done.Load() || w.err != nil {
					t.Errorf("Release(4) did not wake waiter %d (Acquire(%d)): done %v, err %v; all three fit", i, w.n, w.done.Load(), w.err)
				}
			}
		})
	})
}

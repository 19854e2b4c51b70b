package semtest

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// testGuarantees checks each guarantee the implementation claims beyond the
// contract, and skips the others.
func (c *config) testGuarantees(t *testing.T) {
	claim := func(t *testing.T, claimed bool, name string) {
		if !claimed {
			t.Skipf("%s not claimed", name)
		}
	}
	run(t, "FIFO", func(t *testing.T) {
		claim(t, c.g.FIFO, "FIFO")
		c.testFIFO(t)
	})
	run(t, "UnitFIFO", func(t *testing.T) {
		claim(t, c.g.UnitFIFO, "UnitFIFO")
		c.testUnitFIFO(t)
	})
	run(t, "NoBarging", func(t *testing.T) {
		claim(t, c.g.NoBarging, "NoBarging")
		run(t, "Parked", c.testNoBargingParked)
		run(t, "PartlyServed", c.testNoBargingPartlyServed)
	})
	run(t, "NoStarvation", func(t *testing.T) {
		claim(t, c.g.NoStarvation, "NoStarvation")
		c.testNoStarvation(t)
	})
}

func (c *config) testFIFO(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(3, 3)
		// Arrival order: waiter 0 wants 2, 1 wants 1, 2 wants 3, 3 wants 1.
		ws := sc.orderedWaiters(2, 1, 3, 1)
		const test = -1
		steps := []struct {
			from int // whose permits to give back: test (1 of its own) or a waiter (all of its)
			want []int
			why  string
		}{
			{test, nil, "1 free: the head wants 2, so nobody may pass it"},
			{test, []int{0}, "2 free: the head is served"},
			{test, []int{0, 1}, "1 free: the next in line is served"},
			{0, []int{0, 1}, "2 free: waiter 2 wants 3, so waiter 3 may not pass it"},
			{1, []int{0, 1, 2}, "3 free: waiter 2 is served"},
			{2, []int{0, 1, 2, 3}, "3 free: the last waiter is served"},
		}
		for i, st := range steps {
			if st.from == test {
				s.Release(1)
			} else {
				ws[st.from].release(s)
			}
			sc.settle()
			if got := served(ws); fmt.Sprint(got) != fmt.Sprint(st.want) {
				t.Errorf("step %d: served waiters %v; want %v (%s; arrival order, weights 2,1,3,1, size 3)", i, got, st.want, st.why)
				break
			}
		}
	})
}

func (c *config) testUnitFIFO(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(1, 1)
		ws := sc.orderedWaiters(1, 1, 1, 1, 1)
		s.Release(1)
		for round := range ws {
			sc.settle()
			want := make([]int, round+1)
			for i := range want {
				want[i] = i
			}
			if got := served(ws); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("after release %d: served waiters %v; want %v (arrival order)", round+1, got, want)
				break
			}
			ws[round].release(s)
		}
	})
}

// testNoBargingParked: a waiter is parked, wanting more than is free; a
// TryAcquire that fits in what is free may not pass it.
func (c *config) testNoBargingParked(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(2, 2)
		w := sc.arrive(2)
		s.Release(1) // 1 free, but the waiter wants 2
		sc.settle()
		if s.TryAcquire(1) {
			t.Error("TryAcquire(1) succeeded while an Acquire(2) was waiting; a barging TryAcquire can starve waiters")
			s.Release(1)
		}
		s.Release(1)
		sc.settle()
		if !w.done.Load() || w.err != nil {
			t.Errorf("the waiting Acquire(2) was not served once 2 permits were free: done %v, err %v", w.done.Load(), w.err)
		}
	})
}

// testNoBargingPartlyServed: all 3 of 3 held, an Acquire(2) waits, and two
// Release(1) follow each other with no pause, then a TryAcquire(1). Whatever
// the interleaving, it must fail: either the waiter has been served and
// nothing is free, or it still waits (perhaps holding the first permit
// already) and may not be passed. The window in which a waiter that gathers
// permits one at a time can be passed is short, so the check runs several
// trials, giving the waiter more and more time to run before the
// TryAcquire, and logs how often it had returned by then.
func (c *config) testNoBargingPartlyServed(t *testing.T) {
	c.bubbleTrials(t, 20, "at the TryAcquire", func(t *testing.T, sc *scene, trial int) bool {
		s := sc.newHeld(3, 3)
		w := sc.arrive(2)
		s.Release(1)
		s.Release(1)
		letWaiterRun(sc, trial%5)
		returnedFirst := w.done.Load()
		if s.TryAcquire(1) {
			t.Errorf("trial %d: TryAcquire(1) succeeded right after two Release(1) while an Acquire(2) was waiting (3 held of 3); it passed the waiter between two of its grants", trial)
			s.Release(1)
		}
		sc.settle()
		if !w.done.Load() || w.err != nil {
			t.Errorf("trial %d: the waiting Acquire(2) was not served once 2 permits were free: done %v, err %v", trial, w.done.Load(), w.err)
		}
		s.Release(1) // the test's last permit
		return returnedFirst
	})
}

// letWaiterRun gives the waiters a chance to run: not at all, yields
// times, or, from 4 on, until they have all blocked or returned.
func letWaiterRun(sc *scene, yields int) {
	if yields >= 4 {
		sc.settle()
		return
	}
	for range yields {
		runtime.Gosched()
	}
}

func (c *config) testNoStarvation(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		const size = 4
		s := sc.newSem(size)
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		// Staggered cyclers: at every moment some permit is held, so an
		// implementation that waits for all permits to be free at once
		// starves the large request.
		for i := range size {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer recovered(func(msg string) { t.Errorf("a cycling Acquire(1) or Release(1) panicked: %s", msg) })
				time.Sleep(time.Duration(i) * c.tick / size)
				for ctx.Err() == nil {
					if s.Acquire(ctx, 1) != nil {
						return
					}
					time.Sleep(c.tick)
					s.Release(1)
				}
			}()
		}
		c.sleep(2)
		large := sc.goAcquire(context.Background(), s, size)
		var waited int
		for waited = 0; waited < 100 && !large.done.Load(); waited++ {
			c.sleep(1)
		}
		if !large.done.Load() {
			t.Errorf("a waiting Acquire(%d) was not served within %d hold times while Acquire(1) callers kept cycling", size, waited)
		}
		stop()
		select {
		case <-returnedAll(&wg):
		case <-time.After(stressLimit):
			t.Errorf("the cycling Acquire(1) callers had not returned %v after their context was canceled", stressLimit)
		}
	})
}

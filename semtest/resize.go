package semtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/semacat/sem"
)

// testResize checks [sem.Resizer], when the semaphore implements it: growing
// grants the waiters that now fit, shrinking revokes nothing and takes effect
// as permits come back, and a request larger than the new size fails at once.
func (c *config) testResize(t *testing.T) {
	optionalRows(t, c.has.resizer, "the semaphore does not implement sem.Resizer", []row{
		{"Grow", c.testResizeGrow},
		{"GrowFIFO", c.testResizeGrowFIFO},
		{"ShrinkKeepsHeld", c.testShrinkKeepsHeld},
		{"ShrinkFailsLargeWaiter", c.testShrinkFailsLargeWaiter},
		{"ShrinkFailedWaiter", c.testShrinkFailedWaiter},
		{"ShrinkLaterExceeds", c.testShrinkLaterExceeds},
		{"Size", c.testResizeSize},
		{"AvailableAfterShrink", c.testAvailableAfterShrink},
		{"BadSize", c.testResizeBadSize},
		{"OverRelease", c.testResizeOverRelease},
		{"KeepsClosed", c.testResizeKeepsClosed},
	})
}

// testResizeGrow: growing a full semaphore serves every waiter that fits in
// the permits it adds.
func (c *config) testResizeGrow(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(2, 2)
		ws := []*waiter{sc.arrive(1), sc.arrive(2)}
		sc.resize(5)
		sc.settle()
		if got := served(ws); len(got) != len(ws) {
			t.Fatalf("growing a full semaphore from 2 to 5 served waiters %v of Acquire(1), Acquire(2); want both (3 permits added)", got)
		}
		for _, w := range ws {
			w.release(s)
		}
		expectFree(t, s, 5, 3, "after growing to 5 and the waiters gave back theirs (2 held)")
		release(t, s, 2, "giving back the 2 held")
	})
}

// testResizeGrowFIFO: a FIFO semaphore grants the permits a resize adds in
// arrival order, and stays FIFO afterwards.
func (c *config) testResizeGrowFIFO(t *testing.T) {
	requires(t, c.g.FIFO, "FIFO not claimed")
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(2, 2)
		ws := sc.orderedWaiters(2, 1, 1)
		steps := []struct {
			size int64
			want []int
			why  string
		}{
			{3, nil, "1 added: the head wants 2, so nobody may pass it"},
			{4, []int{0}, "2 added: the head is served"},
			{6, []int{0, 1, 2}, "4 added: the two behind it are served"},
		}
		for i, st := range steps {
			sc.resize(st.size)
			sc.settle()
			if got := served(ws); fmt.Sprint(got) != fmt.Sprint(st.want) {
				t.Errorf("step %d, Resize(%d) of a full semaphore of size 2: served waiters %v; want %v (%s; arrival order, weights 2,1,1)", i, st.size, got, st.want, st.why)
				break
			}
		}
		release(t, s, 2, "giving back the 2 held")
	})
}

// testShrinkKeepsHeld: shrinking below what is held revokes nothing, and no
// permit is granted until fewer than the new size are held.
func (c *config) testShrinkKeepsHeld(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(4, 3)
		sc.resize(2)
		expectTryAcquireFails(t, s, 1, "with 3 held after shrinking from 4 to 2")
		w := sc.arrive(1)
		for held := 3; held > 1; held-- {
			if w.done.Load() {
				t.Fatalf("with %d held after shrinking from 4 to 2, a waiting Acquire(1) returned %v; want it to wait until fewer than 2 are held", held, w.err)
			}
			release(t, s, 1, fmt.Sprintf("giving back 1 of the %d held after the shrink", held))
			sc.settle()
		}
		if !w.served() {
			t.Errorf("with 1 held on a semaphore shrunk to 2, the waiting Acquire(1) was not served (done %v, err %v)", w.done.Load(), w.err)
		}
		release(t, s, 1, "giving back the last permit the test holds")
	})
}

// testShrinkFailsLargeWaiter: a waiter larger than the new size fails at
// once with ErrExceedsSize, and one behind it that fits is served.
func (c *config) testShrinkFailsLargeWaiter(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(4, 2)
		large := sc.arrive(4)
		small := sc.arrive(1) // behind the large one, if the semaphore is FIFO
		sc.resize(3)
		sc.settle()
		switch {
		case !large.done.Load():
			t.Errorf("after shrinking from 4 to 3, a waiting Acquire(4) still waits; want an error wrapping sem.ErrExceedsSize at once")
		case !errors.Is(large.err, sem.ErrExceedsSize):
			t.Errorf("after shrinking from 4 to 3, a waiting Acquire(4) returned %v; want an error wrapping sem.ErrExceedsSize", large.err)
		}
		if !small.served() {
			t.Errorf("after shrinking from 4 to 3 with 2 held, the Acquire(1) that arrived behind a waiting Acquire(4) was not served (done %v, err %v)", small.done.Load(), small.err)
		}
		sc.finishWaiter(small)
		sc.finishWaiter(large)
		if !t.Failed() {
			expectFree(t, s, 3, 1, "after the shrink to 3, with 2 held")
		}
		release(t, s, 2, "giving back the 2 held")
	})
}

// testShrinkFailedWaiter: the error of a waiter that a shrink fails names
// the new size, and, when the semaphore implements sem.Observer, the waiter
// no longer counts in Waiting; the smaller waiters around it are served once
// permits come back.
func (c *config) testShrinkFailedWaiter(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(4, 4)
		ws := sc.orderedWaiters(1, 3, 1)
		o, observes := s.(sem.Observer)
		expectWaiting := func(requests int, permits int64, when string) {
			t.Helper()
			if !observes {
				return
			}
			if r, p := o.Waiting(); r != requests || p != permits {
				t.Errorf("%s: Waiting() = %d, %d; want %d, %d", when, r, p, requests, permits)
			}
		}
		expectWaiting(3, 5, "with Acquire(1), Acquire(3), Acquire(1) waiting")
		sc.resize(2)
		sc.settle()
		large := ws[1]
		if !large.done.Load() || !errors.Is(large.err, sem.ErrExceedsSize) || !namesNumber(large.err.Error(), 2) {
			t.Fatalf("after shrinking from 4 to 2, the waiting Acquire(3): done %v, err %v; want an error naming the new size 2, wrapping sem.ErrExceedsSize",
				large.done.Load(), large.err)
		}
		expectWaiting(2, 2, "after a shrink failed the waiting Acquire(3)")
		release(t, s, 4, "giving back the 4 held after the shrink")
		sc.settle()
		if !ws[0].served() || !ws[2].served() {
			t.Fatalf("with nothing held under size 2, the two waiting Acquire(1) were not both served (errs %v, %v)", ws[0].err, ws[2].err)
		}
		expectWaiting(0, 0, "after both Acquire(1) were served")
	})
}

// namesNumber reports whether msg holds n as a number of its own.
func namesNumber(msg string, n int64) bool {
	return slices.Contains(strings.FieldsFunc(msg, func(r rune) bool { return r < '0' || r > '9' }), fmt.Sprint(n))
}

// testShrinkLaterExceeds: after a shrink, Acquire and TryAcquire larger
// than the new size fail at once.
func (c *config) testShrinkLaterExceeds(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(4)
		sc.resize(2)
		w := sc.arrive(3)
		switch {
		case !w.done.Load():
			t.Errorf("Acquire(3) after shrinking from 4 to 2 blocked; want an error wrapping sem.ErrExceedsSize at once")
		case !errors.Is(w.err, sem.ErrExceedsSize):
			t.Errorf("Acquire(3) after shrinking from 4 to 2 = %v; want an error wrapping sem.ErrExceedsSize", w.err)
		}
		sc.finishWaiter(w)
		expectTryAcquireFails(t, s, 3, "after shrinking from 4 to 2")
		if !t.Failed() {
			expectFree(t, s, 2, 2, "after the shrink to 2")
		}
	})
}

// testResizeSize: Size, when the semaphore has it, reports the new size.
func (c *config) testResizeSize(t *testing.T) {
	s := c.newOrFail(t, 4)
	snap, ok := s.(snapshotter)
	requires(t, ok, "the semaphore has no Size() int64 and Available() int64 methods")
	for _, size := range []int64{6, 2} {
		s.(sem.Resizer).Resize(size)
		if got := snap.Size(); got != size {
			t.Errorf("Size() = %d after Resize(%d); want %d", got, size, size)
		}
		if got := snap.Available(); got != size {
			t.Errorf("Available() = %d after Resize(%d) with nothing held; want %d", got, size, size)
		}
	}
}

// testAvailableAfterShrink: Available, when the semaphore has it, reports
// the size minus the permits held, so it is negative after a shrink below
// what is held, until enough permits come back.
func (c *config) testAvailableAfterShrink(t *testing.T) {
	s := c.newHeld(t, 4, 3)
	snap, ok := s.(snapshotter)
	requires(t, ok, "the semaphore has no Size() int64 and Available() int64 methods")
	s.(sem.Resizer).Resize(1)
	for held := int64(3); held > 0; held-- {
		if got, want := snap.Available(), 1-held; got != want {
			t.Errorf("Available() = %d with %d held after shrinking from 4 to 1; want %d (the size minus the permits held, negative until enough come back)", got, held, want)
		}
		release(t, s, 1, fmt.Sprintf("giving back 1 of the %d held after the shrink", held))
	}
	if got := snap.Available(); got != 1 {
		t.Errorf("Available() = %d after every permit came back to a semaphore shrunk to 1; want 1", got)
	}
}

// testResizeBadSize: a size below 1 panics, naming the package, the method
// and the value, and changes nothing.
func (c *config) testResizeBadSize(t *testing.T) {
	s := c.newHeld(t, 3, 1)
	r := s.(sem.Resizer)
	for _, size := range []int64{0, -1, -1 << 63} {
		expectPanic(t, fmt.Sprintf("Resize(%d)", size), func() { r.Resize(size) }, "Resize", fmt.Sprint(size), c.pkg)
	}
	expectFree(t, s, 3, 2, "after the panics (1 of 3 held)")
	release(t, s, 1, "giving back the 1 held")
}

// testResizeOverRelease: after a shrink below what is held, releasing more
// than is held still panics, and what is held can still be given back.
func (c *config) testResizeOverRelease(t *testing.T) {
	words := c.overReleaseWords()
	s := c.newHeld(t, 4, 3)
	s.(sem.Resizer).Resize(2)
	expectPanic(t, "Release(4) holding 3 after shrinking from 4 to 2", func() { s.Release(4) }, words...)
	release(t, s, 3, "giving back the 3 held after the shrink")
	expectPanic(t, "Release(1) holding none after shrinking to 2", func() { s.Release(1) }, words...)
	expectFree(t, s, 2, 2, "after the 3 held were given back")
}

// testResizeKeepsClosed: a Resize, growing or shrinking, does not reopen a
// closed semaphore.
func (c *config) testResizeKeepsClosed(t *testing.T) {
	requires(t, c.has.closer, "the semaphore does not implement sem.Closer")
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(2, 2)
		sc.shutdown()
		release(t, s, 2, "giving back the 2 held after Close")
		for _, size := range []int64{3, 1} {
			sc.resize(size)
			expectTryAcquireFails(t, s, 1, fmt.Sprintf("after Close and Resize(%d)", size))
			w := sc.arrive(1)
			expectClosed(t, w, "after Close and Resize(%d), Acquire(1)", size)
			sc.finishWaiter(w)
		}
	})
}

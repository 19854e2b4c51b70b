package semtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/semacat/sem"
)

// testObserve checks [sem.Observer], when the semaphore implements it:
// Waiting counts exactly who waits, and OnWait reports every Acquire that
// waited, once, with what it returned, and no other.
func (c *config) testObserve(t *testing.T) {
	optionalRows(t, c.has.observer, "the semaphore does not implement sem.Observer", []row{
		{"Waiting", c.testWaiting},
		{"OnWaitGranted", c.testOnWaitGranted},
		{"OnWaitCanceled", c.testOnWaitCanceled},
		{"OnWaitClosed", c.testOnWaitClosed},
		{"OnWaitExceeds", c.testOnWaitExceeds},
		{"OnWaitNotWaited", c.testOnWaitNotWaited},
		{"OnWaitNil", c.testOnWaitNil},
	})
}

// waitLog records the events OnWait reports.
type waitLog struct {
	mu     sync.Mutex
	events []sem.WaitEvent
}

// observe installs a new waitLog on the scene's semaphore.
func (sc *scene) observe() *waitLog {
	l := &waitLog{}
	sc.s.(sem.Observer).OnWait(l.record)
	return l
}

func (l *waitLog) record(e sem.WaitEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

func (l *waitLog) snapshot() []sem.WaitEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// reported reports whether an event for an Acquire(n) has been recorded.
func (l *waitLog) reported(n int64) bool {
	return slices.ContainsFunc(l.snapshot(), func(e sem.WaitEvent) bool { return e.N == n })
}

// expectEvents fails t unless l holds exactly one event per waiter, in any
// order, each with the waiter's N (the waiters' weights differ), its error
// and a wait of at least minWait.
func expectEvents(t *testing.T, l *waitLog, ws []*waiter, minWait time.Duration) {
	t.Helper()
	events := l.snapshot()
	if len(events) != len(ws) {
		t.Errorf("OnWait was called %d times %s; want once for each of the %d Acquire calls that waited", len(events), formatEvents(events), len(ws))
		return
	}
	for _, w := range ws {
		i := slices.IndexFunc(events, func(e sem.WaitEvent) bool { return e.N == w.n })
		if i < 0 {
			t.Errorf("no OnWait event has N = %d, the weight of an Acquire that waited (events %s)", w.n, formatEvents(events))
			continue
		}
		e := events[i]
		if !sameError(e.Err, w.err) {
			t.Errorf("the OnWait event of Acquire(%d) has Err %v; Acquire returned %v", w.n, e.Err, w.err)
		}
		// A context made before the wait began can end it less than
		// minWait after its Start (in real time), but not before its
		// deadline.
		earliest := e.Start.Add(minWait)
		if !w.deadline.IsZero() && w.deadline.Before(earliest) {
			earliest = w.deadline
		}
		if e.Start.IsZero() || e.End.Before(e.Start) || e.End.Before(earliest) {
			t.Errorf("the OnWait event of Acquire(%d) has Start %v, End %v; want End at least %v after a non-zero Start%s", w.n, e.Start, e.End, minWait, orDeadline(w.deadline))
		}
	}
}

// orDeadline words a waiter's context deadline, if it has one, as the
// other end a wait may have.
func orDeadline(deadline time.Time) string {
	if deadline.IsZero() {
		return ""
	}
	return fmt.Sprintf(", or at its context's deadline %v", deadline)
}

// sameError reports whether the error OnWait reported is the one Acquire
// returned: both nil, or the same sentinel at their root.
func sameError(reported, returned error) bool {
	if reported == nil || returned == nil {
		return reported == returned
	}
	for _, sentinel := range []error{context.Canceled, context.DeadlineExceeded, sem.ErrClosed, sem.ErrExceedsSize} {
		if errors.Is(returned, sentinel) {
			return errors.Is(reported, sentinel)
		}
	}
	return reported.Error() == returned.Error()
}

// testWaiting: Waiting counts the waiting requests and their permits.
func (c *config) testWaiting(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(3, 3)
		o := s.(sem.Observer)
		expect := func(requests int, permits int64, when string) {
			t.Helper()
			if r, p := o.Waiting(); r != requests || p != permits {
				t.Errorf("%s: Waiting() = %d, %d; want %d, %d", when, r, p, requests, permits)
			}
		}
		expect(0, 0, "3 of 3 held, nobody waiting")
		small, large := sc.arrive(1), sc.arrive(2)
		expect(2, 3, "an Acquire(1) and an Acquire(2) waiting")
		sc.finishWaiter(large)
		expect(1, 1, "after the waiting Acquire(2) was canceled")
		release(t, s, 1, "giving back 1 of the 3 held")
		sc.settle()
		if !small.served() {
			t.Fatalf("the waiting Acquire(1) was not served when 1 permit was freed (done %v, err %v)", small.done.Load(), small.err)
		}
		expect(0, 0, "after the waiting Acquire(1) was served")
		release(t, s, 2, "giving back the other 2 held")
	})
}

// testOnWaitGranted: each Acquire that waited and was served is reported
// once, before it returns, with Err nil and the time it waited, even when it
// was woken up before it could be served.
func (c *config) testOnWaitGranted(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(2, 2)
		l := sc.observe()
		var ws []*waiter
		var unreported atomic.Int32 // served Acquire calls not reported when they returned
		for _, n := range []int64{2, 1} {
			ws = append(ws, sc.goAcquireThen(context.Background(), func() {}, s, n, func() {
				if !l.reported(n) {
					unreported.Add(1)
				}
			}))
			sc.settle()
		}
		c.sleep(2)
		for held := 2; held > 0; held-- {
			release(t, s, 1, "giving back 1 of the permits the test holds")
			sc.settle()
		}
		for range len(ws) {
			for _, w := range ws {
				w.release(s)
			}
			sc.settle()
		}
		if got := served(ws); len(got) != len(ws) {
			t.Fatalf("only waiters %v of Acquire(2), Acquire(1) were served once every permit was free", got)
		}
		expectEvents(t, l, ws, 2*c.tick)
		if n := unreported.Load(); n > 0 {
			t.Errorf("%d Acquire calls that waited returned before OnWait reported them", n)
		}
	})
}

// testOnWaitCanceled: an Acquire that waited and gave up is reported with
// ctx.Err(), canceled or past its deadline.
func (c *config) testOnWaitCanceled(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(2, 2)
		l := sc.observe()
		canceled := sc.arrive(1)
		ctx, cancel := context.WithTimeout(context.Background(), 2*c.tick)
		defer cancel()
		expired := sc.goAcquire(ctx, s, 2)
		sc.settle()
		c.sleep(3)
		sc.finishWaiter(canceled)
		sc.finishWaiter(expired) // reads its done flag: its err is then safe to read
		if !errors.Is(canceled.err, context.Canceled) || !errors.Is(expired.err, context.DeadlineExceeded) {
			t.Fatalf("the canceled Acquire(1) returned %v, the expired Acquire(2) %v; want context.Canceled and context.DeadlineExceeded", canceled.err, expired.err)
		}
		expectEvents(t, l, []*waiter{canceled, expired}, 2*c.tick)
		release(t, s, 2, "giving back the 2 held")
	})
}

// testOnWaitClosed: an Acquire that Close failed is reported with
// ErrClosed.
func (c *config) testOnWaitClosed(t *testing.T) {
	requires(t, c.checksClose(), c.closeMissing())
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(1, 1)
		l := sc.observe()
		w := sc.arrive(1)
		c.sleep(1)
		sc.shutdown()
		sc.settle()
		expectClosed(t, w, "after Close, a waiting Acquire(1)")
		expectEvents(t, l, []*waiter{w}, c.tick)
		release(t, s, 1, "giving back the 1 held")
	})
}

// testOnWaitExceeds: an Acquire that a shrink failed is reported with
// ErrExceedsSize.
func (c *config) testOnWaitExceeds(t *testing.T) {
	requires(t, c.has.resizer, "the semaphore does not implement sem.Resizer")
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(4, 4)
		l := sc.observe()
		w := sc.arrive(3)
		c.sleep(1)
		sc.resize(2)
		sc.settle()
		if !w.done.Load() || !errors.Is(w.err, sem.ErrExceedsSize) {
			t.Fatalf("a waiting Acquire(3) after shrinking from 4 to 2: done %v, err %v; want an error wrapping sem.ErrExceedsSize", w.done.Load(), w.err)
		}
		expectEvents(t, l, []*waiter{w}, c.tick)
		release(t, s, 4, "giving back the 4 held")
	})
}

// testOnWaitNotWaited: Acquire calls that do not wait are never reported.
func (c *config) testOnWaitNotWaited(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newSem(2)
		l := sc.observe()
		done, cancel := context.WithCancel(context.Background())
		cancel()
		calls := []struct {
			name string
			call func() error
		}{
			{"Acquire(1) with 2 free", func() error { return s.Acquire(context.Background(), 1) }},
			{"Acquire(1) with 1 free", func() error { return s.Acquire(context.Background(), 1) }},
			{"Acquire(0) with none free", func() error { return s.Acquire(context.Background(), 0) }},
			{"Acquire(3) on a semaphore of size 2", func() error { return s.Acquire(context.Background(), 3) }},
		}
		for _, call := range calls {
			_ = call.call()
			if events := l.snapshot(); len(events) > 0 {
				t.Fatalf("after %s, which did not wait, OnWait was called with %s", call.name, formatEvents(events))
			}
		}
		release(t, s, 2, "giving back the 2 acquired")
		if err := s.Acquire(done, 1); err == nil {
			release(t, s, 1, "giving back an Acquire that should have failed")
		}
		if s.TryAcquire(1) {
			release(t, s, 1, "giving back TryAcquire(1)")
		}
		if events := l.snapshot(); len(events) > 0 {
			t.Errorf("after Acquire(done ctx, 1) and TryAcquire(1), which did not wait, OnWait was called with %s", formatEvents(events))
		}
	})
}

// testOnWaitNil: OnWait(nil) stops the reports.
func (c *config) testOnWaitNil(t *testing.T) {
	c.bubble(t, func(t *testing.T, sc *scene) {
		s := sc.newHeld(1, 1)
		l := sc.observe()
		s.(sem.Observer).OnWait(nil)
		w := sc.arrive(1)
		release(t, s, 1, "giving back the 1 held")
		sc.settle()
		if !w.served() {
			t.Fatalf("the waiting Acquire(1) was not served when the permit was freed (done %v, err %v)", w.done.Load(), w.err)
		}
		if events := l.snapshot(); len(events) > 0 {
			t.Errorf("after OnWait(nil), OnWait's former function was called with %s", formatEvents(events))
		}
	})
}

// formatEvents lists events for a failure message.
func formatEvents(events []sem.WaitEvent) string {
	parts := make([]string, len(events))
	for i, e := range events {
		parts[i] = fmt.Sprintf("{N %d, waited %v, Err %v}", e.N, e.Waited(), e.Err)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

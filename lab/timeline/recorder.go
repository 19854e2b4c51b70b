// Package timeline records, goroutine by goroutine, what a program does with
// its semaphores, so that a timeline can be drawn: when each Acquire was
// called, when it began and stopped waiting, when it was granted or failed,
// when each Release happened, and the moments a waiting goroutine was woken
// and went back to sleep.
//
// # Design
//
// A [Recorder] is a clock origin and a log. [Recorder.Watch] wraps a
// semaphore; [Watched.Lane] returns a handle, itself a sem.Semaphore, that
// records every call made through it in one lane, named by the caller. A
// lane stands for a goroutine (or for any role the caller wants to see as
// one line), and the caller chooses it: the recorder never guesses which
// lane a call belongs to. Several watched semaphores can share lanes, by
// name, so that one lane shows a goroutine taking two forks.
//
// Waiting is read from the strategy itself when it implements sem.Observer:
// Watch installs an OnWait function, and the WaitEvent it receives (the
// weight, when the wait began and ended, its error) is paired with the lane
// call that it belongs to, by weight, outcome and time. When a strategy
// cannot report waits, a call that took time is drawn as waiting from call
// to return.
//
// Wake-ups are read from the context. A lane passes the semaphore a context
// that notes every call of its Err method made by the goroutine that called
// Acquire; a strategy whose waiter looks at its context each time it wakes
// and still cannot proceed (condsem's waiters after every Broadcast,
// spinsem's after a barging goroutine took the permits first) thereby shows
// each such wake-up, once per instant. A strategy that wakes a waiter only
// to hand it its permits shows none, which is the point of the comparison;
// the looks at the waiter's context that a releasing goroutine makes, to
// decide at the grant whether a cancellation came first, are not the
// waiter waking and are not noted. The goroutine is told by its id, read
// from its stack header: a development tool's shortcut, never a library's.
// A wake-up that ends the wait is drawn as the grant or the failure it leads
// to.
//
// # Cost
//
// Recording is opt-in and costs only the code that uses a lane: a
// semaphore that is not watched pays nothing, because the strategies do no
// work for OnWait while no function is installed (see sem.Observer). A
// lane's Acquire allocates its context wrapper and takes the recorder's
// mutex, which is fine for teaching and debugging, not for a hot path.
//
// Run a recording inside a testing/synctest bubble to get a deterministic
// timeline: the strategies' clock readings and the recorder's are then the
// bubble's fake clock.
package timeline

import (
	"context"
	"sync"
	"time"

	"github.com/semacat/sem"
)

// Recorder keeps the log of every watched semaphore's lanes. The zero value
// is not usable; call [New].
type Recorder struct {
	origin time.Time
	mu     sync.Mutex
	lanes  []*laneLog // in order of first use
	byName map[string]*laneLog
}

// New returns a Recorder whose clock starts now.
func New() *Recorder {
	return &Recorder{origin: time.Now(), byName: make(map[string]*laneLog)}
}

// since returns the time elapsed since the recorder started.
func (r *Recorder) since(t time.Time) time.Duration { return t.Sub(r.origin) }

// Watched is a semaphore watched by a Recorder. Make calls through its
// lanes; calls made on the semaphore directly are not recorded.
type Watched struct {
	rec  *Recorder
	name string
	s    sem.Semaphore

	mu      sync.Mutex
	pending []sem.WaitEvent // reported by OnWait, not yet claimed by a lane
}

// Watch starts recording calls made on s through the lanes of the returned
// Watched, under the name shown on the timeline (for instance "fork 2").
// If s implements sem.Observer, Watch installs its own OnWait function,
// replacing any other; [Watched.Stop] removes it.
func (r *Recorder) Watch(name string, s sem.Semaphore) *Watched {
	w := &Watched{rec: r, name: name, s: s}
	if o, ok := s.(sem.Observer); ok {
		o.OnWait(w.observe)
	}
	return w
}

// Stop removes the OnWait function that Watch installed, if any.
func (w *Watched) Stop() {
	if o, ok := w.s.(sem.Observer); ok {
		o.OnWait(nil)
	}
}

// observe is the OnWait function: it keeps the event until the lane whose
// call waited claims it.
func (w *Watched) observe(e sem.WaitEvent) {
	w.mu.Lock()
	w.pending = append(w.pending, e)
	w.mu.Unlock()
}

// claim removes and returns the pending wait event of a call for n permits
// made at called that returned at returned, failed or not. OnWait runs
// before Acquire returns, so the event is pending by then; if several
// concurrent calls match, their events are alike to the picture, and the
// earliest reported is taken.
func (w *Watched) claim(n int64, called, returned time.Time, failed bool) (sem.WaitEvent, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, e := range w.pending {
		if e.N == n && (e.Err != nil) == failed && !e.Start.Before(called) && !e.End.After(returned) {
			w.pending = append(w.pending[:i], w.pending[i+1:]...)
			return e, true
		}
	}
	return sem.WaitEvent{}, false
}

// Lane returns a handle on the watched semaphore whose calls are recorded
// in the lane called name. Lanes are shared by name across the semaphores a
// Recorder watches, and appear on the timeline in the order of first use.
// A lane's calls should come from one goroutine at a time, as a goroutine's
// own calls do.
func (w *Watched) Lane(name string) sem.Semaphore {
	return &Lane{w: w, log: w.rec.lane(name)}
}

// lane returns the log of the lane called name, creating it on first use.
func (r *Recorder) lane(name string) *laneLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.byName[name]
	if !ok {
		l = &laneLog{name: name}
		r.byName[name] = l
		r.lanes = append(r.lanes, l)
	}
	return l
}

// Lane is a sem.Semaphore that records the calls made through it; see
// [Watched.Lane].
type Lane struct {
	w   *Watched
	log *laneLog
}

// Acquire calls the watched semaphore's Acquire and records the call, its
// wait, the wake-ups seen through the context, and its outcome.
func (l *Lane) Acquire(ctx context.Context, n int64) error {
	probe := newProbe(ctx)
	called := time.Now()
	err := l.w.s.Acquire(probe, n)
	returned := time.Now()
	op := op{kind: opAcquire, sem: l.w.name, n: n, err: err, at: called, end: returned}
	if e, ok := l.w.claim(n, called, returned, err != nil); ok {
		op.waited, op.waitStart, op.waitEnd = true, e.Start, e.End
	} else if _, observed := l.w.s.(sem.Observer); !observed && returned.After(called) {
		op.waited, op.waitStart, op.waitEnd = true, called, returned
	}
	op.lookups = probe.seen()
	l.w.rec.add(l.log, op)
	return err
}

// TryAcquire calls the watched semaphore's TryAcquire and records whether
// it took the permits.
func (l *Lane) TryAcquire(n int64) bool {
	ok := l.w.s.TryAcquire(n)
	now := time.Now()
	var err error
	if !ok {
		err = errTryFailed
	}
	l.w.rec.add(l.log, op{kind: opTry, sem: l.w.name, n: n, err: err, at: now, end: now})
	return ok
}

// Release calls the watched semaphore's Release and records it, at the
// time it was called; a Release that panics is not recorded.
func (l *Lane) Release(n int64) {
	now := time.Now()
	l.w.s.Release(n)
	l.w.rec.add(l.log, op{kind: opRelease, sem: l.w.name, n: n, at: now, end: now})
}

// add appends op to the lane's log.
func (r *Recorder) add(l *laneLog, o op) {
	r.mu.Lock()
	l.ops = append(l.ops, o)
	r.mu.Unlock()
}

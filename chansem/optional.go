package chansem

import (
	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/observe"
)

// Waiting reports how many Acquire calls wait and how many permits they ask
// for in total. The two counts are read one after the other, each a
// snapshot stale as soon as it returns.
func (s *Semaphore) Waiting() (requests int, permits int64) {
	r := s.waits.Load()
	return int(r), r + s.extra.Load()
}

// OnWait installs f to be called once by every Acquire that waited, when it
// stops waiting, before it returns; OnWait(nil) removes it. With none
// installed, nothing reads the clock.
func (s *Semaphore) OnWait(f func(sem.WaitEvent)) { s.onWait.Set(f) }

// waiting is an Acquire(n) on its slow path, counted in Waiting and
// reported to OnWait once it had to wait.
type waiting struct {
	s       *Semaphore
	n       int64
	started bool
	obs     observe.Wait
}

// start counts the Acquire as waiting, the first time it is called.
func (w *waiting) start() {
	if w.started {
		return
	}
	w.started = true
	w.s.waits.Add(1)
	if w.n > 1 { // single-permit waiters, the common case, pay one add
		w.s.extra.Add(w.n - 1)
	}
	w.obs = w.s.onWait.Start(w.n)
}

// end stops counting the Acquire if it waited, reports its wait, and returns
// err, what the Acquire returns.
func (w *waiting) end(err error) error {
	if !w.started {
		return err
	}
	w.s.waits.Add(-1)
	if w.n > 1 {
		w.s.extra.Add(1 - w.n)
	}
	return w.obs.End(err)
}

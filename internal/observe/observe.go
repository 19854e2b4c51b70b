// Package observe is the plumbing of sem.Observer's OnWait that the semacat
// strategies share: the installed function, and the timing of one wait.
//
// With no function installed, a wait costs one atomic load and reads no
// clock.
package observe

import (
	"sync/atomic"
	"time"

	"github.com/semacat/sem"
)

// Hook holds the function installed by OnWait. The zero value holds none.
type Hook struct {
	f atomic.Pointer[func(sem.WaitEvent)]
}

// Set installs f, or removes the installed function if f is nil.
func (h *Hook) Set(f func(sem.WaitEvent)) {
	if f == nil {
		h.f.Store(nil)
		return
	}
	h.f.Store(&f)
}

// Start begins the wait of an Acquire for n permits: it takes the function
// installed now, and reads the clock only if there is one.
func (h *Hook) Start(n int64) Wait {
	f := h.f.Load()
	if f == nil {
		return Wait{}
	}
	return Wait{f: f, n: n, start: time.Now()}
}

// Wait is one Acquire's wait, begun by Hook.Start.
type Wait struct {
	f     *func(sem.WaitEvent) // nil: nobody observes this wait
	n     int64
	start time.Time
}

// End reports the wait, which ended with err, to the function taken by
// Start, if any, and returns err.
func (w Wait) End(err error) error {
	if w.f != nil {
		(*w.f)(sem.WaitEvent{N: w.n, Start: w.start, End: time.Now(), Err: err})
	}
	return err
}

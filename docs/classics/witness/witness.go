// Package witness is an independent checker of mutual exclusion, for the
// demonstrations of docs/classics.md and docs/recipes.md. It knows nothing
// of semaphores: every holder runs its critical section through Hold, right
// after its Acquire returned and before its Release, and the witness
// reports the most holders it saw at once. Hold also adds one to a counter
// the unsafe way, reading it before the work and writing it after, so that
// on a semaphore of one permit an exclusion that leaks shows as lost
// updates too: the bug a semaphore of size 1 exists to prevent.
//
// The same witness runs on a catalog strategy, where its report must be
// clean, and on a flawed recipe, where the test asserts that it is not.
package witness

import (
	"fmt"
	"sync"
)

// Witness records the holders of a semaphore of a given size, each holding
// one permit. It is safe for concurrent use; the zero value is not usable,
// call New.
type Witness struct {
	size int64

	mu      sync.Mutex
	holding int64
	peak    int64
	entries int64
	counter int64 // read and written apart by Hold, on purpose
}

// New returns a witness for a semaphore of size permits.
func New(size int64) *Witness {
	if size < 1 {
		panic(fmt.Sprintf("witness: New: size %d, want at least 1", size))
	}
	return &Witness{size: size}
}

// Hold records a holder that got in, runs work (the critical section), and
// records that the holder left. Around work it reads the counter and then
// writes back what it read plus one, as unprotected code would.
func (w *Witness) Hold(work func()) {
	read := w.enter()
	work()
	w.exit(read + 1)
}

func (w *Witness) enter() (counter int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holding++
	w.entries++
	w.peak = max(w.peak, w.holding)
	return w.counter
}

func (w *Witness) exit(counter int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.holding--
	w.counter = counter
}

// Report is what a witness saw.
type Report struct {
	Size    int64 // the size of the semaphore watched
	Entries int64 // holders that got in
	Peak    int64 // the most holders at once
	// LostUpdates is how many of the counter's increments were overwritten
	// by a holder that read it before another wrote it. It means a broken
	// exclusion only for a semaphore of size 1.
	LostUpdates int64
}

// Report returns what the witness saw so far.
func (w *Witness) Report() Report {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Report{Size: w.size, Entries: w.entries, Peak: w.peak, LostUpdates: w.entries - w.holding - w.counter}
}

// Err returns nil if the semaphore kept its promise: never more holders
// than its size and, for a size of 1, no lost update. Otherwise it says
// what broke.
func (r Report) Err() error {
	switch {
	case r.Peak > r.Size:
		return fmt.Errorf("witness: %d holders at once on a semaphore of size %d (%d entries, %d lost updates)",
			r.Peak, r.Size, r.Entries, r.LostUpdates)
	case r.Size == 1 && r.LostUpdates > 0:
		return fmt.Errorf("witness: %d of %d updates made while holding the semaphore were lost", r.LostUpdates, r.Entries)
	}
	return nil
}

package spinsem

// Mode is a snapshot of the semaphore's internal state, for tests.
type Mode struct {
	Free     int64 // negative while a shrink leaves more held than the size
	Starving bool
	Woken    bool
	Waiting  bool
	Queued   int
	Closed   bool
}

// Mode reports the semaphore's state word and queue length.
func (s *Semaphore) Mode() Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.state.Load()
	return Mode{
		Free:     free(st),
		Starving: st&starving != 0,
		Woken:    st&woken != 0,
		Waiting:  st&waiting != 0,
		Queued:   s.q.Len(),
		Closed:   st&closed != 0,
	}
}

// SetSpinHook installs f to run at the end of each spin round that found the
// permits short and the context not done, and returns a function that
// removes it.
func SetSpinHook(f func()) (restore func()) {
	old := spinHook
	spinHook = f
	return func() { spinHook = old }
}

// SetProcs makes the semaphore behave as if GOMAXPROCS were n, also after a
// goroutine parks and refreshes the cached count.
func SetProcs(n int32) (restore func()) {
	old := numProcs
	numProcs = func() int32 { return n }
	refreshProcs()
	return func() {
		numProcs = old
		refreshProcs()
	}
}

// SetTestHookPark makes f run just before a queued waiter blocks, the moment
// at which its wake-up and its context may both become ready. It returns a
// function that removes the hook.
func SetTestHookPark(f func()) (restore func()) {
	testHookPark = f
	return func() { testHookPark = nil }
}

const StarvationThreshold = starvationThreshold

// MaxSizeDerived is MaxSize as it derives from the state word's layout.
const MaxSizeDerived = 1<<(63-permitShift) - 1

// PermitShift is the number of low bits of the state word that are not
// free permits.
const PermitShift = permitShift

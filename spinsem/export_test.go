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

// SetSpinHook makes f run on s at the end of each spin round that found
// the permits short and the context not done. Call it before s is shared.
func (s *Semaphore) SetSpinHook(f func()) { s.hooks().spin = f }

// SetProcs makes s behave as if GOMAXPROCS were n. Call it before s is
// shared.
func (s *Semaphore) SetProcs(n int32) { s.hooks().procs = n }

// SetTestHookPark makes f run on s just before a queued waiter blocks, the
// moment at which its wake-up and its context may both become ready. Call
// it before s is shared.
func (s *Semaphore) SetTestHookPark(f func()) { s.hooks().park = f }

func (s *Semaphore) hooks() *testHooks {
	if s.test == nil {
		s.test = new(testHooks)
	}
	return s.test
}

const StarvationThreshold = starvationThreshold

// MaxSizeDerived is MaxSize as it derives from the state word's layout.
const MaxSizeDerived = 1<<(63-permitShift) - 1

// PermitShift is the number of low bits of the state word that are not
// free permits.
const PermitShift = permitShift

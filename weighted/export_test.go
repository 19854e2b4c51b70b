package weighted

// SetTestHookQueue makes f run on s in the window between an Acquire's
// finding that its request does not fit and its setting of the slow bit.
// Call it before s is shared.
func (s *Semaphore) SetTestHookQueue(f func()) { s.hooks().queue = f }

// SetTestHookPark makes f run on s just before a queued waiter blocks, the
// moment at which its grant and its context may both become ready. Call it
// before s is shared.
func (s *Semaphore) SetTestHookPark(f func()) { s.hooks().park = f }

// SetTestHookWake makes f run on s after an unlock of the mutex and before
// the waiters granted or failed under it are woken. Call it before s is
// shared.
func (s *Semaphore) SetTestHookWake(f func()) { s.hooks().wake = f }

// SetTestHookFrozen makes f run on s, under the mutex, once a Release,
// Resize or canceled waiter has set the slow bit and before it publishes the
// state word it computes. Call it before s is shared.
func (s *Semaphore) SetTestHookFrozen(f func()) { s.hooks().frozen = f }

// SetTestHookTrySlow makes f run on s when a TryAcquire has found the slow
// bit set, before it takes the mutex to decide. Call it before s is shared.
func (s *Semaphore) SetTestHookTrySlow(f func()) { s.hooks().trySlow = f }

func (s *Semaphore) hooks() *testHooks {
	if s.test == nil {
		s.test = new(testHooks)
	}
	return s.test
}

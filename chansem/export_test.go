package chansem

// SetTestHookSend makes f run on s just before each send of a waiting
// Acquire, the moment at which the send and the context may both become
// ready. Call it before s is shared.
func (s *Semaphore) SetTestHookSend(f func()) { s.hooks().send = f }

// SetTestHookRelease makes f run on s in Release(n > 1) between the check
// that n permits are held and their return. Call it before s is shared.
func (s *Semaphore) SetTestHookRelease(f func()) { s.hooks().release = f }

func (s *Semaphore) hooks() *testHooks {
	if s.test == nil {
		s.test = new(testHooks)
	}
	return s.test
}

package condsem

// SetTestHookLock makes f run on s in Acquire just before it takes the
// mutex to look at its context and the permits. Call it before s is shared.
func (s *core) SetTestHookLock(f func()) { s.hooks().lock = f }

func (s *core) hooks() *testHooks {
	if s.test == nil {
		s.test = new(testHooks)
	}
	return s.test
}

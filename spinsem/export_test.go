package spinsem

// Mode is a snapshot of the semaphore's internal state, for tests.
type Mode struct {
	Free     int64
	Starving bool
	Woken    bool
	Waiting  bool
	Queued   int
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
	}
}

// SetSpinHook installs f to run at each spin round, before the context is
// checked, and returns a function that removes it.
func SetSpinHook(f func()) (restore func()) {
	old := spinHook
	spinHook = f
	return func() { spinHook = old }
}

// SetProcs overrides the cached GOMAXPROCS that decides whether to spin.
func SetProcs(n int32) (restore func()) {
	old := procs.Load()
	procs.Store(n)
	return func() { procs.Store(old) }
}

const StarvationThreshold = starvationThreshold

// SpinConfig sets the spin tuning for a measurement and returns a function
// that restores the previous one.
func SpinConfig(min, max int32, yield bool, iters int, adaptive bool) (restore func()) {
	a, b, c, d, e := spinMin, spinMax, spinYield, spinIters, spinAdapt
	spinMin, spinMax, spinYield, spinIters, spinAdapt = min, max, yield, iters, adaptive
	return func() { spinMin, spinMax, spinYield, spinIters, spinAdapt = a, b, c, d, e }
}

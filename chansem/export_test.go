package chansem

// SetTestHookSend makes f run just before each send of a waiting Acquire,
// the moment at which the send and the context may both become ready. It
// returns a function that removes the hook.
func SetTestHookSend(f func()) (restore func()) {
	testHookSend = f
	return func() { testHookSend = nil }
}

// SetTestHookRelease makes f run in Release(n > 1) between the check that n
// permits are held and their return. It returns a function that removes the
// hook.
func SetTestHookRelease(f func()) (restore func()) {
	testHookRelease = f
	return func() { testHookRelease = nil }
}

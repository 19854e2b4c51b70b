package weighted

// SetTestHookQueue makes f run in the window between an Acquire's finding
// that its request does not fit and its setting of the slow bit. It
// returns a function that removes the hook.
func SetTestHookQueue(f func()) (restore func()) {
	testHookQueue = f
	return func() { testHookQueue = nil }
}

// SetTestHookPark makes f run just before a queued waiter blocks, the moment
// at which its grant and its context may both become ready. It returns a
// function that removes the hook.
func SetTestHookPark(f func()) (restore func()) {
	testHookPark = f
	return func() { testHookPark = nil }
}

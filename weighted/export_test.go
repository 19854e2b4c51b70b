package weighted

// SetTestHookQueue makes f run in the window between an Acquire's finding
// that its request does not fit and its setting of the queued bit. It
// returns a function that removes the hook.
func SetTestHookQueue(f func()) (restore func()) {
	testHookQueue = f
	return func() { testHookQueue = nil }
}

package weighted

// testHooks are functions a test installs on one semaphore, to run at the
// moments their fields name.
type testHooks struct {
	// queue runs in acquireSlow between the check that a request does not fit
	// and the setting of the slow bit: the window in which a fast-path
	// Release can race a new waiter.
	queue func()
	// park runs just before a queued waiter blocks, the moment at which
	// its grant and its context may both become ready.
	park func()
	// frozen runs in grant, before it grants: the slow bit is set, by
	// freeze, and the caller has yet to publish the state it computes from
	// the copy freeze returned.
	frozen func()
	// trySlow runs in TryAcquire once it has found the slow bit set,
	// before it takes the mutex to decide.
	trySlow func()
	// wake runs in unlock, after the mutex is unlocked and before the
	// waiters granted or failed under it are woken, when there are any.
	wake func()
}

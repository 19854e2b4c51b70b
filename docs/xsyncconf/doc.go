// Package xsyncconf runs semacat's conformance suite on
// golang.org/x/sync/semaphore.Weighted with every guarantee claimed, so
// that what docs/choosing.md says of it is a run, not a memory. The run is
// a test behind the build tag semacat_keys: x/sync does not keep the
// contract, and one of its faults panics the test binary. The test of
// docs/xsync_test.go runs it and checks the page's list.
package xsyncconf

// Package cancellation holds the runnable programs of docs/cancellation.md:
// what a context.Context is, how it ends (canceled by hand, or by a
// deadline), how a waiting Acquire watches it, and what a caller holds
// afterwards. Every program is an example or a test, run by go test.
package cancellation

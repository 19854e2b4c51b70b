// Package bubble holds the runnable programs of docs/synctest.md: tests of
// waiting code written with testing/synctest, whose bubble runs the clock
// only when every goroutine in it is blocked, so that a test of a wait, a
// timeout or a wake-up is deterministic and takes no real time. The
// package has no code of its own; its tests are the programs.
package bubble

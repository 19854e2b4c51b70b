// Package pitfalls holds the runnable programs behind docs/pitfalls.md. Each
// _test.go file shows one way to misuse a semaphore, next to its fix, as an
// example with checked output or as a test that passes because the mistake
// behaves exactly as the page says it does.
//
// Everything about blocking and time runs inside testing/synctest bubbles, so
// deadlocks are detected by a timeout on a simulated clock: the programs never
// hang and take no real time. The one exception is
// Example_spinWhileHoldingTheLock: a spinning goroutine never blocks, so a
// bubble's clock would never reach its deadline; it spins in real time until
// a short one.
package pitfalls

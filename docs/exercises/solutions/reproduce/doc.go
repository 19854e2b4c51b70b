// Package reproduce is a solution to exercise 3 of docs/exercises.md: two
// pitfalls of docs/pitfalls.md shown in new settings, each next to its fix,
// in testing/synctest bubbles.
//
//   - Pitfall 5, two locks taken in different orders: two bank accounts,
//     each guarded by a semaphore of size 1, transferring money to each
//     other at the same time (transfer_test.go).
//   - Pitfall 1, a forgotten release: a handler that panics while holding a
//     permit, under a server that recovers panics as net/http does, so the
//     process lives on and the permit is lost (panic_test.go).
package reproduce

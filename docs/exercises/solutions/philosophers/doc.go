// Package philosophers is a solution to exercise 6 of docs/exercises.md:
// three cures for the dining philosophers' deadlock of docs/pitfalls, each
// run in its tests inside a testing/synctest bubble.
//
//   - ordered: every philosopher takes the lower-numbered fork first, so no
//     cycle of waiting can close.
//   - waiter: a semaphore of size one less than the philosophers must be
//     held before reaching for any fork, so at least one philosopher can
//     always get both.
//   - try and back off: take the first fork, TryAcquire the second, and on
//     failure put the first down and wait before trying again. It cannot
//     deadlock, but it can livelock: philosophers that back off for the same
//     time keep meeting each other in lockstep and nobody eats. A random
//     back-off breaks the symmetry.
package philosophers

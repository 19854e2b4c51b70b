// Package classics solves the classic synchronization problems with the
// semaphores of this repository, as runnable, tested programs behind
// docs/classics.md:
//
//   - [Buffer]: producer-consumer with a bounded buffer, two counting
//     semaphores of which one starts with no permit free;
//   - [RWLock]: readers-writers, a reader takes one permit and a writer all
//     of them, so that whether writers starve depends on the strategy;
//   - [Barrier]: a reusable barrier made of two turnstiles;
//   - [Rendezvous]: two goroutines wait for each other, with two semaphores
//     that start with no permit free.
//
// The dining philosophers live in docs/pitfalls (philosophers_test.go).
//
// The semaphores here have the weighted contract of sem.Semaphore: a
// semaphore that starts with no permit free is built with NewAvailable(size,
// 0), which counts its size permits as held by nobody, so that Release may
// give them back. That is the "signal" of the textbook semaphore, bounded:
// releasing more than the size panics instead of piling up.
package classics

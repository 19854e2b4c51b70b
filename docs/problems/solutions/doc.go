// Package solutions holds the answers to the problem book of
// docs/problems: the eight patterns and the classic problems, each solved
// with the weighted semaphores of this repository. Read a problem's
// statement and its hint in docs/problems first.
//
// Every solution builds its semaphores with a [NewSemaphore] it is given,
// so that the same code runs on every strategy (and, in the tests, on
// semaphores that move time between their operations). A semaphore that
// starts with no permit free, NewSemaphore(size, 0), is the textbook
// semaphore that starts at zero: Release(1) is its signal and Acquire(ctx,
// 1) its wait, and size bounds how many signals may be pending.
//
// Every wait takes a context and every method that waits returns its
// error: a goroutine whose context is done stops where it is, and may leave
// the solution broken for the others (the checkers cancel only when a run
// is over or deadlocked, and rely on that to turn a deadlock into a
// verdict). Making each solution survive cancellation is an exercise.
package solutions

import "github.com/semacat/sem/docs/problems/check"

// NewSemaphore returns a semaphore of size permits of which available are
// free, like the NewAvailable constructors of the strategies: the
// checker's [check.NewSemaphore].
type NewSemaphore = check.NewSemaphore

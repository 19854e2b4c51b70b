package group

import (
	"context"
	"sync"

	"github.com/semacat/sem"
)

// Results is a [Group] whose functions each return a value, which Wait
// returns in the order the calls were made, however the calls finish.
type Results[T any] struct {
	g   *Group
	mu  sync.Mutex
	out []T
}

// WithResults returns a Results whose functions hold permits of s, and its
// context, as [WithContext] does.
func WithResults[T any](ctx context.Context, s sem.Semaphore) (*Results[T], context.Context) {
	mustHave("WithResults", s)
	g, ctx := WithContext(ctx, s)
	return &Results[T]{g: g}, ctx
}

// Go is [Group.Go] for a function that returns a value. Every call takes
// the next place in the slice that Wait returns, whether f runs or not.
func (r *Results[T]) Go(n int64, f func() (T, error)) {
	i := r.place()
	r.g.Go(n, r.keep(i, f))
}

// TryGo is [Group.TryGo] for a function that returns a value. A call that
// reports true takes the next place in the slice that Wait returns; one that
// reports false takes none.
func (r *Results[T]) TryGo(n int64, f func() (T, error)) bool {
	if !r.g.tryAcquire(n) {
		return false
	}
	r.g.wg.Add(1)
	go r.g.run(n, r.keep(r.place(), f))
	return true
}

// Wait is [Group.Wait], and returns the values too: one per Go call and per
// TryGo call that reported true, in the order they were made. The place of
// a function that failed or never ran holds T's zero value.
func (r *Results[T]) Wait() ([]T, error) {
	err := r.g.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out, err
}

// place reserves the next place in the results.
func (r *Results[T]) place() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var zero T
	r.out = append(r.out, zero)
	return len(r.out) - 1
}

// keep returns a function that calls f and stores its value at place i if
// it succeeded.
func (r *Results[T]) keep(i int, f func() (T, error)) func() error {
	return func() error {
		v, err := f()
		if err != nil {
			return err
		}
		r.mu.Lock()
		r.out[i] = v
		r.mu.Unlock()
		return nil
	}
}

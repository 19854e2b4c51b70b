package group_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/semacat/sem/group"
	"github.com/semacat/sem/weighted"
)

// Jobs of different sizes share a budget of 8 CPU-units: at most 8 units'
// worth of jobs run at once, served in arrival order, and the first failure
// stops those still waiting.
func Example() {
	type job struct {
		name string
		cost int64
	}
	jobs := []job{{"thumbnail", 1}, {"transcode", 6}, {"index", 2}, {"thumbnail", 1}}

	g, ctx := group.WithContext(context.Background(), weighted.New(8))
	for _, j := range jobs {
		g.Go(j.cost, func() error { // waits until j.cost units are free
			if err := ctx.Err(); err != nil {
				return err // another job failed: stop early
			}
			return nil // j's work
		})
	}
	fmt.Println(g.Wait())
	// Output: <nil>
}

// Results collects one value per call, in the order of the calls, however
// the calls finish.
func ExampleResults() {
	words := []string{"semaphores", "hold", "permits"}
	r, _ := group.WithResults[string](context.Background(), weighted.New(2))
	for _, w := range words {
		r.Go(1, func() (string, error) { return strings.ToUpper(w), nil })
	}
	upper, err := r.Wait()
	fmt.Println(upper, err)
	// Output: [SEMAPHORES HOLD PERMITS] <nil>
}

// TryGo never waits: when the permits are taken, the caller does something
// else, here the work itself, inline.
func ExampleGroup_TryGo() {
	g := group.New(weighted.New(1))
	block := make(chan struct{})
	g.TryGo(1, func() error { <-block; return nil })
	if !g.TryGo(1, func() error { return nil }) {
		fmt.Println("busy: doing it inline")
	}
	close(block)
	fmt.Println(g.Wait())
	// Output:
	// busy: doing it inline
	// <nil>
}

// A function that fails cancels the group's context, with its error as the
// cause; Wait returns that first error.
func ExampleWithContext() {
	errNotFound := errors.New("not found")
	g, ctx := group.WithContext(context.Background(), weighted.New(4))
	g.Go(1, func() error { return errNotFound })
	err := g.Wait()
	fmt.Println(err, context.Cause(ctx))
	// Output: not found not found
}

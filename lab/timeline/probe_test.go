package timeline

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Only the goroutine that made the probe has its lookups noted: another
// goroutine's look at the context, such as a Release deciding at the grant
// whether a cancellation came first, is not the waiter waking.
func TestProbeNotesOnlyItsOwner(t *testing.T) {
	p := newProbe(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = p.Err() })
	wg.Wait()
	assert.Empty(t, p.seen(), "another goroutine's lookup was noted")
	_ = p.Err()
	assert.Len(t, p.seen(), 1, "the owner's lookup was not noted")
}

// goroutineID tells goroutines apart, and is stable within one.
func TestGoroutineID(t *testing.T) {
	mine := goroutineID()
	assert.Equal(t, mine, goroutineID())
	var other uint64
	var wg sync.WaitGroup
	wg.Go(func() { other = goroutineID() })
	wg.Wait()
	assert.NotEqual(t, mine, other)
}

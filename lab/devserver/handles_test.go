package devserver

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// handle counts its Close calls and fails them if told to.
type handle struct {
	closed int
	err    error
}

func (h *handle) Close() error { h.closed++; return h.err }

// cleanupTB records what NewHandles asks of its testing.TB.
type cleanupTB struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (c *cleanupTB) Cleanup(f func()) { c.cleanups = append(c.cleanups, f) }
func (c *cleanupTB) Errorf(format string, args ...any) {
	c.errors = append(c.errors, fmt.Sprintf(format, args...))
}

// Handles added from several goroutines are all listed, and each is closed
// once when the test ends; a failed Close fails the test and says which.
func TestHandlesClosedAtEnd(t *testing.T) {
	tb := &cleanupTB{TB: t}
	hs := NewHandles[*handle](tb)
	made := make([]*handle, 8)
	var wg sync.WaitGroup
	for i := range made {
		made[i] = new(handle)
		wg.Go(func() { assert.Same(t, made[i], hs.Add(made[i])) })
	}
	wg.Wait()
	assert.ElementsMatch(t, made, hs.All())
	made[2].err = errors.New("server gone")
	for _, h := range made {
		assert.Zero(t, h.closed, "a handle was closed before the test ended")
	}

	require.Len(t, tb.cleanups, 1)
	tb.cleanups[0]()
	for _, h := range made {
		assert.Equal(t, 1, h.closed, "each handle must be closed once when the test ends")
	}
	require.Len(t, tb.errors, 1, "only the failed Close fails the test")
	assert.Contains(t, tb.errors[0], "of 8")
	assert.Contains(t, tb.errors[0], "server gone")
}

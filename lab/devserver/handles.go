package devserver

import (
	"sync"
	"testing"
)

// Handles collects the handles on a server that a test makes, from any
// goroutine (typically in the constructor a conformance suite calls), and
// closes them when the test ends.
type Handles[T interface{ Close() error }] struct {
	mu  sync.Mutex
	all []T
}

// NewHandles returns an empty collection whose handles are closed when t
// ends; a Close that fails fails t.
func NewHandles[T interface{ Close() error }](t testing.TB) *Handles[T] {
	h := new(Handles[T])
	t.Cleanup(func() {
		all := h.All()
		for i, s := range all {
			if err := s.Close(); err != nil {
				t.Errorf("closing handle %d of %d at the end of the test: %v", i+1, len(all), err)
			}
		}
	})
	return h
}

// Add records s and returns it.
func (h *Handles[T]) Add(s T) T {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.all = append(h.all, s)
	return s
}

// All returns the handles recorded so far, oldest first.
func (h *Handles[T]) All() []T {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.all[:len(h.all):len(h.all)]
}

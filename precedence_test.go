package sem_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

// A request larger than the size can never be served, and every local
// strategy says so first, as sem's contract puts it: before it looks at a
// done context or at Close.
func TestExceedsSizeComesFirst(t *testing.T) {
	strategies := map[string]func() sem.Semaphore{
		"chansem":      func() sem.Semaphore { return chansem.New(1) },
		"condsem":      func() sem.Semaphore { return condsem.New(1) },
		"condsem fair": func() sem.Semaphore { return condsem.NewFair(1) },
		"weighted":     func() sem.Semaphore { return weighted.New(1) },
		"spinsem":      func() sem.Semaphore { return spinsem.New(1) },
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for name, newSem := range strategies {
		t.Run(name, func(t *testing.T) {
			s := newSem()
			assert.ErrorIs(t, s.Acquire(done, 2), sem.ErrExceedsSize, "with a done context")
			c, ok := s.(sem.Closer)
			if !ok {
				return
			}
			assert.NoError(t, c.Close())
			assert.ErrorIs(t, s.Acquire(context.Background(), 2), sem.ErrExceedsSize, "once closed")
			assert.ErrorIs(t, s.Acquire(done, 2), sem.ErrExceedsSize, "once closed, with a done context")
			assert.ErrorIs(t, s.Acquire(done, 1), context.Canceled, "once closed, a done context comes before the close")
		})
	}
}

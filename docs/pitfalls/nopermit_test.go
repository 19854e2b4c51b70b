package pitfalls_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/chansem"
)

// printer is a resource that may be used by one caller at a time. It records
// the most callers it ever had at once.
type printer struct{ users, peak atomic.Int64 }

func (p *printer) print() {
	n := p.users.Add(1)
	for {
		peak := p.peak.Load()
		if n <= peak || p.peak.CompareAndSwap(peak, n) {
			break
		}
	}
	time.Sleep(time.Millisecond)
	p.users.Add(-1)
}

// printWrong looks at the semaphore instead of taking a permit.
func printWrong(_ context.Context, s *chansem.Semaphore, p *printer) {
	if s.Available() > 0 { // BUG: a snapshot, not a permit; everyone sees 1
		p.print()
	}
}

// printRight holds a permit while it uses the printer.
func printRight(ctx context.Context, s *chansem.Semaphore, p *printer) {
	if s.Acquire(ctx, 1) != nil {
		return
	}
	defer s.Release(1)
	p.print()
}

// peakUsers runs 5 callers of print against a semaphore of size 1.
func peakUsers(print func(context.Context, *chansem.Semaphore, *printer)) int64 {
	s, p := chansem.New(1), new(printer)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { print(context.Background(), s, p) })
	}
	wg.Wait()
	return p.peak.Load()
}

// Checking Available and then using the resource is check-then-act: all five
// callers see a free permit and print at once.
func TestUsingWithoutAPermit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		assert.Equal(t, int64(5), peakUsers(printWrong), "checking Available")
		assert.Equal(t, int64(1), peakUsers(printRight), "holding a permit")
	})
}

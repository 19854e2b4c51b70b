package oracle

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem"
)

// flaw names one way of breaking mini on purpose.
type flaw int

const (
	flawless          flaw = iota
	overAdmits             // TryAcquire checks the free count, lets go of the lock, then takes
	clampsOverRelease      // Release of more than is held sets the count to zero, without a panic
	grantsAfterCancel      // a waiting Acquire whose context is done waits a moment longer for permits, and takes them
	keepsWhenCanceled      // the same, but it returns ctx.Err() holding them
)

// mini is a small semaphore (a mutex, a count, and a channel closed and
// replaced whenever permits come back) with switches that break it.
type mini struct {
	mu      sync.Mutex
	size    int64
	held    int64
	changed chan struct{}
	flaw    flaw
}

func newMini(f flaw) NewFunc {
	return func(size int64) sem.Semaphore {
		return &mini{size: size, changed: make(chan struct{}), flaw: f}
	}
}

func (m *mini) Acquire(ctx context.Context, n int64) error {
	for waited, lingered := false, false; ; waited = true {
		m.mu.Lock()
		fits := m.held+n <= m.size
		if err := ctx.Err(); err != nil {
			switch {
			case lingered && fits:
				m.held += n
				if m.flaw == grantsAfterCancel {
					err = nil
				}
			case waited && !lingered && (m.flaw == grantsAfterCancel || m.flaw == keepsWhenCanceled):
				lingered = true
				changed := m.changed
				m.mu.Unlock()
				select {
				case <-changed:
				case <-time.After(lateCancel):
				}
				continue
			}
			m.mu.Unlock()
			return err
		}
		if fits {
			m.held += n
			m.mu.Unlock()
			return nil
		}
		changed := m.changed
		m.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		}
	}
}

func (m *mini) TryAcquire(n int64) bool {
	m.mu.Lock()
	fits := m.held+n <= m.size
	if m.flaw == overAdmits && fits {
		m.mu.Unlock()
		runtime.Gosched()
		m.mu.Lock()
	}
	defer m.mu.Unlock()
	if fits {
		m.held += n
	}
	return fits
}

func (m *mini) Release(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if n > m.held {
		if m.flaw != clampsOverRelease {
			panic("mini: released more than held")
		}
		n = m.held
	}
	m.held -= n
	close(m.changed)
	m.changed = make(chan struct{})
}

// The model accepts a correct semaphore's histories and rejects each broken
// one's: it is neither too strict nor vacuous.
// The broken ones show their flaw in only a few histories of a hundred,
// so they get more of them.
func TestModelRejectsBroken(t *testing.T) {
	cfg := config(t)
	cfg.Histories *= 4
	for _, tc := range []struct {
		name string
		flaw flaw
	}{
		{"flawless", flawless},
		{"over-admission under a race", overAdmits},
		{"over-release that clamps", clampsOverRelease},
		{"grant after a cancel that came first", grantsAfterCancel},
		{"canceled waiter keeps its permits", keepsWhenCanceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tally := Check(newMini(tc.flaw), cfg)
			t.Log(tally)
			if tc.flaw == flawless {
				assert.Equal(t, tally.Histories, tally.Linearizable, "a correct semaphore's histories were rejected: %s", tally.Example)
				return
			}
			assert.Positive(t, tally.Not, "no history of a broken semaphore was rejected")
			t.Logf("first rejected %s", tally.Example)
		})
	}
}

// stuck is a semaphore whose Acquire waits, whatever its context, until the
// test lets it go: the calls of its histories never return on their own.
type stuck struct{ letGo chan struct{} }

func (s stuck) Acquire(context.Context, int64) error {
	<-s.letGo
	return nil
}
func (stuck) TryAcquire(int64) bool { return false }
func (stuck) Release(int64)         {}

// A history whose calls never return, even once every context is canceled,
// counts as hung, and Check goes on with the next.
func TestCheckCountsHung(t *testing.T) {
	s := stuck{letGo: make(chan struct{})}
	defer close(s.letGo) // the abandoned goroutines end with the test
	tally := Check(func(int64) sem.Semaphore { return s },
		Config{Histories: 2, Workers: 2, Ops: 4, MaxSize: 1, Seed: 1, Patience: 10 * time.Millisecond})
	assert.Equal(t, Tally{Histories: 2, Hung: 2, Example: tally.Example, Outcomes: tally.Outcomes}, tally)
	assert.Empty(t, tally.Outcomes, "no call of a hung history is counted")
	assert.Contains(t, tally.Example, "never returned")
}

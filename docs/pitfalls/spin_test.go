package pitfalls_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
)

// spinSem is a hand-made semaphore whose acquire spins while holding the
// mutex that release needs.
type spinSem struct {
	mu    sync.Mutex
	free  int
	spins atomic.Int64 // how many times acquire looked and found nothing
}

func (s *spinSem) acquire(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.free == 0 { // BUG: only release can change s.free, and it needs s.mu
		if err := ctx.Err(); err != nil {
			return err
		}
		s.spins.Add(1)
		runtime.Gosched()
	}
	s.free--
	return nil
}

func (s *spinSem) release() {
	s.mu.Lock()
	s.free++
	s.mu.Unlock()
}

// The release is called while acquire spins, yet acquire never sees it: it
// gives up at its deadline, and only then can the release run.
func Example_spinWhileHoldingTheLock() {
	s := new(spinSem) // no permit free
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()

	acquired := make(chan error)
	go func() { acquired <- s.acquire(ctx) }()
	for s.spins.Load() == 0 {
		runtime.Gosched() // wait until acquire holds the lock and spins
	}
	released := make(chan struct{})
	go func() {
		s.release()
		close(released)
	}()

	fmt.Println("acquire:", <-acquired)
	<-released
	fmt.Println("free after the release:", s.free)
	// Output:
	// acquire: context deadline exceeded
	// free after the release: 1
}

// condSem waits with sync.Cond, whose Wait unlocks the mutex while it sleeps
// and locks it again before it returns, so release can get in.
type condSem struct {
	mu   sync.Mutex
	cond sync.Cond
	free int
}

func newCondSem() *condSem {
	s := new(condSem)
	s.cond.L = &s.mu
	return s
}

func (s *condSem) acquire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.free == 0 {
		s.cond.Wait()
	}
	s.free--
}

func (s *condSem) release() {
	s.mu.Lock()
	s.free++
	s.mu.Unlock()
	s.cond.Signal()
}

// The fix: wait without the lock. The waiter is parked in cond.Wait, not
// holding the mutex, and the release wakes it.
func TestWaitWithoutTheLock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newCondSem()
		var acquired atomic.Bool
		go func() {
			s.acquire()
			acquired.Store(true)
		}()
		synctest.Wait()
		assert.False(t, acquired.Load(), "acquire returned with no permit free")
		s.release()
		synctest.Wait()
		assert.True(t, acquired.Load(), "release did not wake the waiter")
	})
}

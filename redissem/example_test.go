package redissem_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/semacat/sem/redissem"
)

// At most 4 jobs run at once across every process that uses the name
// "renders", whatever their number. Examples here need a Redis server at
// localhost:6379, so they are compiled but not run, except ExamplePermit.
func ExampleNew() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	s, err := redissem.New(rdb, "renders", 4, redissem.WithLease(30*time.Second))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Acquire(ctx, 1); err != nil {
		log.Fatal(err) // ctx.Err(), or an error wrapping redissem.ErrUnavailable
	}
	defer s.Release(1)
	fmt.Println("rendering")
}

// A large job takes several permits; it waits its turn in arrival order, and
// the small jobs that arrive after it wait behind it.
func ExampleSemaphore_Acquire_weighted() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	s, err := redissem.New(rdb, "gpu-memory-gb", 16)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	const need = 12
	if err := s.Acquire(context.Background(), need); err != nil {
		log.Fatal(err)
	}
	defer s.Release(need)
	fmt.Println("training with 12 GB")
}

// fencedStore stands for the resource a lock protects, when it can check
// fencing tokens: it remembers the highest token it has seen and rejects a
// write that carries a lower one.
type fencedStore struct {
	mu      sync.Mutex
	highest int64
	rows    []string
}

func (st *fencedStore) write(token int64, row string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if token < st.highest {
		return fmt.Errorf("write %q rejected: its token is older than one the store has seen", row)
	}
	st.highest = token
	st.rows = append(st.rows, row)
	return nil
}

// With size 1 the semaphore is a lock, and the fencing token lets the
// protected store refuse a write from a holder whose lease ran out while it
// was paused: here the first holder's write arrives after the second holder
// was granted the lock and wrote. (This example runs against the tests'
// Redis server.)
func ExamplePermit() {
	rdb := redis.NewClient(&redis.Options{Addr: shared.Addr()})
	defer rdb.Close()
	lock, err := redissem.New(rdb, fmt.Sprintf("ledger-writer-%d", os.Getpid()), 1)
	if err != nil {
		log.Fatal(err)
	}
	defer lock.Close()
	ctx := context.Background()
	store := new(fencedStore)

	first, err := lock.AcquirePermit(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	// The first holder stalls; the lock passes on (a release stands in
	// for its lease running out).
	_ = first.Release(ctx)
	second, err := lock.AcquirePermit(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(store.write(second.Token(), "from the second holder"))
	fmt.Println(store.write(first.Token(), "from the first holder, late"))
	_ = second.Release(ctx)
	// Output:
	// <nil>
	// write "from the first holder, late" rejected: its token is older than one the store has seen
}

// Release has no error in the semaphore contract; ReleaseErr and the error
// handler say when Redis could not be told. The permits come back when
// their lease expires at the latest.
func ExampleWithErrorHandler() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	s, err := redissem.New(rdb, "uploads", 8,
		redissem.WithErrorHandler(func(err error) {
			if errors.Is(err, redissem.ErrLeaseLost) {
				log.Print("lost a lease; another process may hold those permits now: ", err)
				return
			}
			log.Print(err)
		}))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	if s.TryAcquire(2) {
		if err := s.ReleaseErr(context.Background(), 2); err != nil {
			log.Print(err)
		}
	}
}

package redissem_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/semacat/sem/redissem"
)

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
// was granted the lock and wrote. It dials the Redis server named by
// REDIS_ADDR, localhost:6379 by default.
func ExamplePermit() {
	addr := os.Getenv("REDIS_ADDR")
	if addr == "" {
		addr = "localhost:6379"
	}
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	ctx := context.Background()
	lock, err := redissem.New(ctx, rdb, fmt.Sprintf("ledger-writer-%d", os.Getpid()), 1)
	if err != nil {
		log.Fatal(err)
	}
	defer lock.Close()
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

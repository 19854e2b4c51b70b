package redissem_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/semacat/sem/redissem"
)

// At most 4 jobs run at once across every process that uses the name
// "renders", whatever their number. (The examples need a Redis server at
// localhost:6379; the tests compile them without running them.)
func ExampleNew() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	s, err := redissem.New(ctx, rdb, "renders", 4, redissem.WithLease(30*time.Second))
	if err != nil {
		log.Fatal(err) // Redis unreachable (ErrUnavailable), or "renders" exists with another size
	}
	defer s.Close()

	if err := s.Acquire(ctx, 1); err != nil {
		log.Fatal(err) // ctx.Err(), or an error wrapping redissem.ErrUnavailable
	}
	defer s.Release(1)
	fmt.Println("rendering")
}

// A large job takes several permits; it waits its turn in arrival order, and
// the small jobs that arrive after it wait behind it.
func ExampleSemaphore_Acquire_weighted() {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	s, err := redissem.New(ctx, rdb, "gpu-memory-gb", 16)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	const need = 12
	if err := s.Acquire(ctx, need); err != nil {
		log.Fatal(err)
	}
	defer s.Release(need)
	fmt.Println("training with 12 GB")
}

// Release has no error in the semaphore contract; ReleaseErr and the error
// handler say when Redis could not be told. The permits come back when
// their lease expires at the latest.
func ExampleWithErrorHandler() {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	s, err := redissem.New(ctx, rdb, "uploads", 8,
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
		if err := s.ReleaseErr(ctx, 2); err != nil {
			log.Print(err)
		}
	}
}

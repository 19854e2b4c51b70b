package etcdsem_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/semacat/sem/etcdsem"
)

// At most 3 jobs run at once across every process that uses the name
// "example-pool". Acquiring the whole size waits for all jobs to finish.
// The examples dial the etcd cluster named by ETCD_ENDPOINTS
// (comma-separated), or one on localhost; the tests point it at theirs.
func Example_workerPool() {
	endpoints := os.Getenv("ETCD_ENDPOINTS")
	if endpoints == "" {
		endpoints = "localhost:2379"
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(endpoints, ","), DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()

	ctx := context.Background()
	s, err := etcdsem.New(ctx, cli, "example-pool", 3)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	var mu sync.Mutex
	done := 0
	for range 10 {
		if err := s.Acquire(ctx, 1); err != nil {
			log.Fatal(err)
		}
		go func() {
			defer s.Release(1)
			mu.Lock()
			done++
			mu.Unlock()
		}()
	}
	if err := s.Acquire(ctx, 3); err != nil { // all jobs have finished
		log.Fatal(err)
	}
	s.Release(3)
	fmt.Println("jobs done:", done)
	// Output: jobs done: 10
}

// Acquire gives up when its context does, and leaves the queue as if it had
// never come.
func Example_timeout() {
	endpoints := os.Getenv("ETCD_ENDPOINTS")
	if endpoints == "" {
		endpoints = "localhost:2379"
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(endpoints, ","), DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()

	ctx := context.Background()
	s, err := etcdsem.New(ctx, cli, "example-timeout", 1)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	if err := s.Acquire(ctx, 1); err != nil {
		log.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	err = s.Acquire(tctx, 1)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))
	s.Release(1)
	fmt.Println(s.TryAcquire(1))
	s.Release(1)
	// Output:
	// true
	// true
}

// A write to etcd fenced by a permit happens only while the permit holds,
// even if its holder was paused past its lease and does not know it lost it.
func ExamplePermit_Cmp() {
	endpoints := os.Getenv("ETCD_ENDPOINTS")
	if endpoints == "" {
		endpoints = "localhost:2379"
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(endpoints, ","), DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()

	ctx := context.Background()
	s, err := etcdsem.New(ctx, cli, "example-fencing", 1)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	p, err := s.AcquirePermit(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	write := func() bool {
		resp, err := cli.Txn(ctx).If(p.Cmp()).Then(clientv3.OpPut("example-fenced-data", "x")).Commit()
		return err == nil && resp.Succeeded
	}
	fmt.Println("while held:", write())
	if err := p.Release(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println("after release:", write())
	// Output:
	// while held: true
	// after release: false
}

// A resource outside etcd fences its writers: it remembers the largest
// token it has seen and rejects writes carrying a smaller one. A holder that
// lost its permit without knowing (paused, or cut off after it checked
// Done) sends its write late; the resource rejects it, because a later
// holder of the size-1 semaphore wrote with a larger token meanwhile.
func ExamplePermit_Token() {
	endpoints := os.Getenv("ETCD_ENDPOINTS")
	if endpoints == "" {
		endpoints = "localhost:2379"
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: strings.Split(endpoints, ","), DialTimeout: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	defer cli.Close()

	// The resource: in real use, a database or a storage service.
	var highest int64
	var data []string
	write := func(token int64, v string) error {
		if token < highest {
			return fmt.Errorf("write %q rejected: token %d is older than %d", v, token, highest)
		}
		highest = token
		data = append(data, v)
		return nil
	}

	ctx := context.Background()
	s, err := etcdsem.New(ctx, cli, "example-fencing-token", 1)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	first, err := s.AcquirePermit(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(write(first.Token(), "first holder, on time"))
	stale := first.Token() // the first holder's late write, still in flight
	if err := first.Release(ctx); err != nil {
		log.Fatal(err)
	}

	second, err := s.AcquirePermit(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(write(second.Token(), "second holder"))
	fmt.Println("late write rejected:", write(stale, "first holder, late") != nil)
	if err := second.Release(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(data)
	// Output:
	// <nil>
	// <nil>
	// late write rejected: true
	// [first holder, on time second holder]
}

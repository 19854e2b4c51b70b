package etcdsem_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/semacat/sem/etcdsem"
)

// connect returns a client of your etcd cluster; in these examples, of the
// embedded server the tests start.
func connect() *clientv3.Client { return cli }

// At most 3 jobs run at once across every process that uses the name
// "example-pool". Acquiring the whole size waits for all jobs to finish.
func Example_workerPool() {
	s, err := etcdsem.New(connect(), "example-pool", 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	ctx := context.Background()
	var mu sync.Mutex
	done := 0
	for range 10 {
		if err := s.Acquire(ctx, 1); err != nil {
			fmt.Println(err)
			return
		}
		go func() {
			defer s.Release(1)
			mu.Lock()
			done++
			mu.Unlock()
		}()
	}
	if err := s.Acquire(ctx, 3); err != nil { // all jobs have finished
		fmt.Println(err)
		return
	}
	s.Release(3)
	fmt.Println("jobs done:", done)
	// Output: jobs done: 10
}

// Acquire gives up when its context does, and leaves the queue as if it had
// never come.
func Example_timeout() {
	ctx := context.Background()
	s, err := etcdsem.New(connect(), "example-timeout", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	if err := s.Acquire(ctx, 1); err != nil {
		fmt.Println(err)
		return
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
	ctx := context.Background()
	c := connect()
	s, err := etcdsem.New(c, "example-fencing", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	p, err := s.AcquirePermit(ctx, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	write := func() bool {
		resp, err := c.Txn(ctx).If(p.Cmp()).Then(clientv3.OpPut("example-fenced-data", "x")).Commit()
		return err == nil && resp.Succeeded
	}
	fmt.Println("while held:", write())
	if err := p.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("after release:", write())
	// Output:
	// while held: true
	// after release: false
}

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

// store is a resource outside etcd that fences its writers: it remembers
// the largest token it has seen and rejects writes carrying a smaller one.
type store struct {
	mu      sync.Mutex
	highest int64
	data    []string
}

func (st *store) write(token int64, v string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if token < st.highest {
		return fmt.Errorf("write %q rejected: token %d is older than %d", v, token, st.highest)
	}
	st.highest = token
	st.data = append(st.data, v)
	return nil
}

// A holder that lost its permit without knowing (paused, or cut off after it
// checked Done) sends its write late. The store rejects it, because a later
// holder of the size-1 semaphore wrote with a larger token meanwhile.
func ExamplePermit_Token() {
	ctx := context.Background()
	s, err := etcdsem.New(connect(), "example-fencing-token", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	st := &store{}

	first, err := s.AcquirePermit(ctx, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.write(first.Token(), "first holder, on time"))
	stale := first.Token() // the first holder's late write, still in flight
	if err := first.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}

	second, err := s.AcquirePermit(ctx, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.write(second.Token(), "second holder"))
	err = st.write(stale, "first holder, late")
	fmt.Println(err != nil, second.Token() > stale)
	if err := second.Release(ctx); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.data)
	// Output:
	// <nil>
	// <nil>
	// true true
	// [first holder, on time second holder]
}

package etcdsem_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// drain queues w waiters, each on its own handle, behind a holder of a lock
// made by newLocker, then releases the lock: each waiter releases as soon as
// it is granted. It returns how long the w grants took from the holder's
// release, and how many watch events the server delivered to cli meanwhile
// (counted in c). A benchmark's timer, if b is one, runs only meanwhile.
func drain(tb testing.TB, cli *clientv3.Client, c *counts, w int,
	newLocker func(testing.TB, *clientv3.Client, string) locker, queue func(string) string) (time.Duration, int64) {
	b, _ := tb.(*testing.B)
	ctx := context.Background()
	name := uniqueName(tb)
	holder := newLocker(tb, cli, name)
	defer holder.close()
	if err := holder.lock(ctx); err != nil {
		tb.Fatal(err)
	}
	waiters := make([]locker, w)
	for i := range waiters {
		waiters[i] = newLocker(tb, cli, name)
		defer waiters[i].close()
	}
	var wg sync.WaitGroup
	errs := make(chan error, w)
	for _, l := range waiters {
		wg.Go(func() {
			if err := l.lock(ctx); err != nil {
				errs <- err
				return
			}
			if err := l.unlock(ctx); err != nil {
				errs <- err
			}
		})
	}
	waitQueued(tb, cli, queue(name), int64(w+1))
	c.events.Store(0)
	if b != nil {
		b.StartTimer()
	}
	start := time.Now()
	if err := holder.unlock(ctx); err != nil {
		tb.Fatal(err)
	}
	wg.Wait()
	took := time.Since(start)
	if b != nil {
		b.StopTimer()
	}
	close(errs)
	for err := range errs {
		tb.Error(err)
	}
	return took, c.events.Load()
}

// waitQueued waits until n keys are queued under prefix, and the watches
// of the waiters behind them have had time to be set up: until no watch
// event has come for a moment.
func waitQueued(tb testing.TB, cli *clientv3.Client, prefix string, n int64) {
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := cli.Get(context.Background(), prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			tb.Fatal(err)
		}
		if resp.Count == n {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d of %d keys queued under %s after a minute", resp.Count, n, prefix)
		}
		time.Sleep(5 * time.Millisecond) // polling the server: nothing to wait on
	}
	time.Sleep(100 * time.Millisecond) // the last waiters' watches reach the server
}

// A waiter watches only what it needs: draining a queue costs each grant a
// bounded number of watch events, whatever the queue's length (watching the
// whole queue, each of the W waiters would receive every change).
func TestDrainWatchesOnlyWhatItNeeds(t *testing.T) {
	t.Parallel()
	var c counts
	cli := countingClient(t, &c)
	defer cli.Close()
	for _, w := range []int{5, 40} {
		took, events := drain(t, cli, &c, w, contenders[0].new, contenders[0].queue)
		perGrant := float64(events) / float64(w)
		t.Logf("W=%d: drained in %v, %d watch events, %.2f per grant", w, took.Round(time.Millisecond), events, perGrant)
		assert.LessOrEqual(t, perGrant, 3.0, "watch events per grant with %d waiters", w)
	}
}

// BenchmarkDrain times the drain of W waiters queued behind a holder, each
// on its own handle, releasing as soon as it is granted, with etcd's
// concurrency.Mutex draining the same W as the reference. It reports the
// time per grant (us/grant) and the watch events the server delivered per
// grant (events/grant). Compare with benchstat -col /impl.
func BenchmarkDrain(b *testing.B) {
	for _, w := range []int{10, 100, 1000} {
		for _, impl := range contenders {
			b.Run(fmt.Sprintf("W=%d/impl=%s", w, impl.name), func(b *testing.B) {
				var c counts
				cli := countingClient(b, &c)
				defer cli.Close()
				b.ReportAllocs()
				var took time.Duration
				var events int64
				b.StopTimer()
				for range b.N {
					d, ev := drain(b, cli, &c, w, impl.new, impl.queue)
					took += d
					events += ev
				}
				b.StartTimer()
				grants := float64(b.N * w)
				b.ReportMetric(float64(took.Microseconds())/grants, "us/grant")
				b.ReportMetric(float64(events)/grants, "events/grant")
			})
		}
	}
}

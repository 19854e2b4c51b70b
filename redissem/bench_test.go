package redissem_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/semacat/sem/redissem"
)

// BenchmarkRoundTrip compares an uncontended Acquire+Release pair with a
// Redis PING over the same client, in the same run: the pair's cost is
// mostly its two round trips. It reports round trips per Acquire and per
// Release, counted by a go-redis hook. Compare with
// `benchstat -col /op`; the target is pair <= 2.5 x ping-pair.
func BenchmarkRoundTrip(b *testing.B) {
	ctx := context.Background()
	c := new(counter)
	rdb := newClient(b, shared.Addr(), c)
	s := newSem(b, rdb, 1)
	if err := s.Acquire(ctx, 1); err != nil { // load the scripts
		b.Fatal(err)
	}
	s.Release(1)

	b.Run("op=ping-pair", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := rdb.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
			if err := rdb.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("op=acquire-release", func(b *testing.B) {
		b.ReportAllocs()
		var acquireTrips, releaseTrips int64
		for b.Loop() {
			before := c.trips.Load()
			if err := s.Acquire(ctx, 1); err != nil {
				b.Fatal(err)
			}
			mid := c.trips.Load()
			s.Release(1)
			acquireTrips += mid - before
			releaseTrips += c.trips.Load() - mid
		}
		b.ReportMetric(float64(acquireTrips)/float64(b.N), "trips/acquire")
		b.ReportMetric(float64(releaseTrips)/float64(b.N), "trips/release")
	})
}

// BenchmarkDrain queues W waiters behind the holder of a size-1 semaphore,
// on ten handles, then times the drain: the holder releases, and each
// waiter releases as soon as it is granted. It reports the time per grant
// (compare with BenchmarkRoundTrip's acquire-release) and the scripts Redis
// ran per grant (INFO commandstats), which must not grow with W.
func BenchmarkDrain(b *testing.B) {
	for _, w := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("W=%d", w), func(b *testing.B) { benchmarkDrain(b, w) })
	}
}

func benchmarkDrain(b *testing.B, waiters int) {
	const handles = 10
	ctx := context.Background()
	rdb := newClient(b, shared.Addr())
	holder := newSem(b, rdb, 1)
	var hs []*redissem.Semaphore
	for range handles {
		s, err := redissem.New(context.Background(), newClient(b, shared.Addr()), holder.Name(), 1)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		hs = append(hs, s)
	}
	queue := redissem.DefaultPrefix + "{" + holder.Name() + "}:queue"
	var scripts, grants int64
	var drain time.Duration
	b.ReportAllocs()
	for range b.N {
		if err := holder.Acquire(ctx, 1); err != nil {
			b.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range waiters {
			wg.Go(func() {
				s := hs[i%handles]
				if err := s.Acquire(ctx, 1); err != nil {
					b.Error(err)
					return
				}
				s.Release(1)
			})
		}
		for rdb.ZCard(ctx, queue).Val() < int64(waiters) {
			time.Sleep(time.Millisecond) // the waiters' requests reach Redis in their own time
		}
		before := scriptCalls(b, rdb)
		start := time.Now()
		holder.Release(1)
		wg.Wait()
		drain += time.Since(start)
		scripts += scriptCalls(b, rdb) - before
		grants += int64(waiters)
	}
	b.ReportMetric(float64(drain.Nanoseconds())/float64(grants), "ns/grant")
	b.ReportMetric(float64(scripts)/float64(grants), "scripts/grant")
}

// scriptCalls returns how many scripts the server has run (EVALSHA and
// EVAL calls), every client's included.
func scriptCalls(b *testing.B, rdb *redis.Client) int64 {
	stats, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, line := range strings.Split(stats, "\n") {
		for _, cmd := range []string{"cmdstat_evalsha:calls=", "cmdstat_eval:calls="} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), cmd); ok {
				calls, _, _ := strings.Cut(rest, ",")
				v, _ := strconv.ParseInt(calls, 10, 64)
				n += v
			}
		}
	}
	return n
}

package redissem_test

import (
	"context"
	"testing"
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

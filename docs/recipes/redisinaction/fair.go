package redisinaction

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Fair is the book's "fair" counting semaphore: the rank comes from a
// shared counter, not from clocks. Three keys: name (holders scored by
// client time, for timeouts only), name:owner (holders scored by counter,
// for the rank) and name:counter.
//
// Acquire takes two steps, each a transaction. First: drop the timed-out
// holders (by this client's clock) from name, drop from name:owner the
// holders no longer in name, and increment the counter. Second: add this
// client to name (scored by its clock) and to name:owner (scored by the
// counter it got), and read its rank in name:owner; below the limit is a
// permit, otherwise it removes itself from both.
//
// The flaw: nothing holds the two steps together. A client that took
// counter 1 and is slow to its second step finds, when it gets there,
// that a client with counter 2 has already got in; its own smaller counter
// still ranks first, so it gets in too.
type Fair struct {
	client
	// BetweenSteps, if set, runs between the two steps of Acquire: the
	// tests' seam to interleave another client there.
	BetweenSteps func()
}

// NewFair returns a client of the semaphore name with limit permits,
// holders timing out after timeout by clock. id names the client.
func NewFair(rdb redis.UniversalClient, name string, limit int64, timeout time.Duration, clock Clock, id string) *Fair {
	return &Fair{client: client{rdb: rdb, name: name, limit: limit, timeout: timeout, clock: clock, id: id}}
}

// TryAcquire reports whether the client got a permit.
func (f *Fair) TryAcquire(ctx context.Context) (bool, error) {
	owner := f.name + ":owner"
	var counter *redis.IntCmd
	_, err := f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRemRangeByScore(ctx, f.name, "-inf", f.staleBefore())
		p.ZInterStore(ctx, owner, &redis.ZStore{Keys: []string{owner, f.name}, Weights: []float64{1, 0}})
		counter = p.Incr(ctx, f.name+":counter")
		return nil
	})
	if err != nil {
		return false, err
	}
	if f.BetweenSteps != nil {
		f.BetweenSteps()
	}
	var rank *redis.IntCmd
	_, err = f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZAdd(ctx, f.name, redis.Z{Score: seconds(f.clock()), Member: f.id})
		p.ZAdd(ctx, owner, redis.Z{Score: float64(counter.Val()), Member: f.id})
		rank = p.ZRank(ctx, owner, f.id)
		return nil
	})
	if err != nil {
		return false, err
	}
	if rank.Val() < f.limit {
		return true, nil
	}
	return false, f.Release(ctx)
}

// Release gives the permit back.
func (f *Fair) Release(ctx context.Context) error {
	_, err := f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, f.name, f.id)
		p.ZRem(ctx, f.name+":owner", f.id)
		return nil
	})
	return err
}

package redisinaction

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Basic is the book's first counting semaphore: a sorted set of holder
// identifiers scored by the time each client says it arrived.
//
// Acquire, in one transaction: drop the holders older than the timeout
// (by this client's clock), add this client scored by its clock, and read
// its rank; a rank below the limit is a permit, otherwise the client
// removes itself. Release removes the identifier.
//
// The flaw: the rank is by client clock. A client whose clock is behind
// scores lower than holders already in, ranks ahead of them and gets in
// past the limit; nothing tells the holders it displaced.
type Basic struct{ client }

// NewBasic returns a client of the semaphore name with limit permits,
// holders timing out after timeout by clock. id names the client.
func NewBasic(rdb redis.UniversalClient, name string, limit int64, timeout time.Duration, clock Clock, id string) *Basic {
	return &Basic{client{rdb: rdb, name: name, limit: limit, timeout: timeout, clock: clock, id: id}}
}

// TryAcquire reports whether the client got a permit.
func (b *Basic) TryAcquire(ctx context.Context) (bool, error) {
	var rank *redis.IntCmd
	_, err := b.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRemRangeByScore(ctx, b.name, "-inf", b.staleBefore())
		p.ZAdd(ctx, b.name, redis.Z{Score: seconds(b.clock()), Member: b.id})
		rank = p.ZRank(ctx, b.name, b.id)
		return nil
	})
	if err != nil {
		return false, err
	}
	if rank.Val() < b.limit {
		return true, nil
	}
	return false, b.rdb.ZRem(ctx, b.name, b.id).Err()
}

// Release gives the permit back.
func (b *Basic) Release(ctx context.Context) error {
	return b.rdb.ZRem(ctx, b.name, b.id).Err()
}

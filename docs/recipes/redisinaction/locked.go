package redisinaction

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Locked is the book's race-free version of Fair: Acquire runs Fair's two
// steps while holding a lock (a key set if absent, with an expiry), so
// that no other client's steps fall between them.
//
// What still breaks: the holders still time out by the acquiring client's
// clock. A client whose clock is ahead by more than the timeout sees every
// holder as stale, evicts them in its first step and gets in beside them,
// while they go on working. The lock cannot help: the eviction happens
// inside it.
type Locked struct {
	fair        *Fair
	lockTimeout time.Duration
}

// NewLocked returns a client of the semaphore name with limit permits,
// holders timing out after timeout by clock, the lock expiring after
// lockTimeout. id names the client.
func NewLocked(rdb redis.UniversalClient, name string, limit int64, timeout, lockTimeout time.Duration, clock Clock, id string) *Locked {
	return &Locked{fair: NewFair(rdb, name, limit, timeout, clock, id), lockTimeout: lockTimeout}
}

// TryAcquire reports whether the client got a permit; it fails at once,
// like a busy semaphore, if another client holds the lock.
func (l *Locked) TryAcquire(ctx context.Context) (bool, error) {
	lock := l.fair.name + ":lock"
	got, err := l.fair.rdb.SetArgs(ctx, lock, l.fair.id, redis.SetArgs{Mode: "NX", TTL: l.lockTimeout}).Result()
	if err == redis.Nil || err == nil && got != "OK" {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer l.fair.rdb.Del(context.WithoutCancel(ctx), lock)
	return l.fair.TryAcquire(ctx)
}

// Release gives the permit back.
func (l *Locked) Release(ctx context.Context) error { return l.fair.Release(ctx) }

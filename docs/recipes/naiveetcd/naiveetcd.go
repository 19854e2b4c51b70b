// Package naiveetcd is a flawed recipe kept for teaching: the semaphore on
// etcd that keeps its count in one key, read, compared and written back by
// the client, polling every Poll while it is full. docs/recipes.md shows
// it failing next to etcdsem, which fixes it. Do not use it.
//
// Acquire reads the count; if it is below the size it writes the count it
// read plus one, otherwise it sleeps for the poll interval and reads
// again. Release reads the count and writes it back minus one. A read and
// the write that follows are two requests, not one transaction: two
// clients that read the same count both write the same value. Two
// acquirers both get in past the size; two releasers lose one of the
// releases, and that permit stays taken forever.
//
// etcdsem makes each admission one transaction conditioned on revisions,
// keeps one key per holder (attached to its lease) instead of a shared
// count, and wakes waiters with watches instead of polling.
package naiveetcd

import (
	"context"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Poll is how long Acquire sleeps before it reads a full count again.
const Poll = 100 * time.Millisecond

// Semaphore is one client of the recipe's semaphore.
type Semaphore struct {
	cli  *clientv3.Client
	key  string
	size int64
	// BetweenReadAndWrite, if set, runs after each read of the count and
	// before the write it decides: the tests' seam to put another client's
	// calls there.
	BetweenReadAndWrite func()
}

// New returns a client of the semaphore whose count is kept in key.
func New(cli *clientv3.Client, key string, size int64) *Semaphore {
	return &Semaphore{cli: cli, key: key, size: size}
}

// Acquire takes a permit, polling while the count is at the size, and
// returns ctx.Err() if ctx is done first.
func (s *Semaphore) Acquire(ctx context.Context) error {
	for {
		count, err := s.read(ctx)
		if err != nil {
			return err
		}
		if count < s.size {
			return s.write(ctx, count+1) // BUG: another client may have written since the read
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(Poll):
		}
	}
}

// Release gives a permit back.
func (s *Semaphore) Release(ctx context.Context) error {
	count, err := s.read(ctx)
	if err != nil {
		return err
	}
	return s.write(ctx, count-1) // BUG: a release between the read and this write is lost
}

// Count returns the count stored in etcd.
func (s *Semaphore) Count(ctx context.Context) (int64, error) { return s.read(ctx) }

func (s *Semaphore) read(ctx context.Context) (int64, error) {
	resp, err := s.cli.Get(ctx, s.key)
	if err != nil || len(resp.Kvs) == 0 {
		return 0, err
	}
	return strconv.ParseInt(string(resp.Kvs[0].Value), 10, 64)
}

func (s *Semaphore) write(ctx context.Context, count int64) error {
	if s.BetweenReadAndWrite != nil {
		s.BetweenReadAndWrite()
	}
	_, err := s.cli.Put(ctx, s.key, strconv.FormatInt(count, 10))
	return err
}

package redissem_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// aclCommands is what redissem needs, as docs/distributed.md lists it: the
// commands its clients send and those its scripts call, with HINCRBY and
// WAIT for WithReplicas.
var aclCommands = []string{
	"+eval", "+evalsha", "+subscribe", "+unsubscribe", "+ping", "+hello",
	"+time", "+hmget", "+hget", "+hset", "+hdel", "+hincrby", "+exists", "+del",
	"+zadd", "+zrem", "+zrange", "+zrangebyscore", "+zremrangebyscore", "+publish", "+wait",
	"+pexpire", "+persist",
}

// aclClient creates a Redis user with the given rules and returns a client
// that logs in as it.
func aclClient(t *testing.T, user string, rules ...string) *redis.Client {
	t.Helper()
	admin := newClient(t, shared.Addr())
	ctx := context.Background()
	args := []any{"ACL", "SETUSER", user, "reset", "on", ">pw"}
	for _, r := range rules {
		args = append(args, r)
	}
	require.NoError(t, admin.Do(ctx, args...).Err())
	t.Cleanup(func() { _ = admin.Do(context.Background(), "ACL", "DELUSER", user).Err() })
	opts := clientOptions(shared.Addr())
	opts.Username, opts.Password = user, "pw"
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// waitAndRelease has a waiter queue behind a holder on rdb, and reports the
// holder's release error and the waiter's Acquire error.
func waitAndRelease(t *testing.T, rdb *redis.Client, opts ...redissem.Option) (release, acquire error) {
	t.Helper()
	holder := newSem(t, rdb, 1, opts...)
	waiter, err := redissem.New(context.Background(), rdb, holder.Name(), 1, opts...)
	require.NoError(t, err)
	defer waiter.Close()
	ctx := context.Background()
	require.NoError(t, holder.Acquire(ctx, 1))
	done := acquireWithin(waiter, 1, 5*time.Second)
	waitFor(t, "the waiter to queue", func() bool {
		free, err := holder.Available(ctx)
		return err == nil && free == 0 && queuedCount(t, holder) == 1
	})
	release = holder.ReleaseErr(ctx, 1)
	acquire = <-done
	if acquire == nil {
		waiter.Release(1)
	}
	return release, acquire
}

func queuedCount(t *testing.T, s *redissem.Semaphore) int64 {
	n, err := newClient(t, shared.Addr()).ZCard(context.Background(), redissem.DefaultPrefix+"{"+s.Name()+"}:queue").Result()
	require.NoError(t, err)
	return n
}

// A user with exactly the documented permissions, on the keys and channels
// of a prefix, runs a semaphore: a waiter is granted and notified.
func TestDocumentedACLSuffices(t *testing.T) {
	t.Parallel()
	rdb := aclClient(t, "semacat-acl", append([]string{"~" + redissem.DefaultPrefix + "*", "&" + redissem.DefaultPrefix + "*"}, aclCommands...)...)
	release, acquire := waitAndRelease(t, rdb)
	require.NoError(t, release)
	require.NoError(t, acquire)
}

// A user that may not PUBLISH: the script that grants a waiter cannot
// notify it. Redis does not roll back a script that fails halfway, so that
// failure must not abort the script after its writes; the waiter is granted
// by its handle's refresh of its queue entry instead.
func TestDeniedPublishStillGrants(t *testing.T) {
	t.Parallel()
	rules := []string{"~*", "&*"}
	for _, c := range aclCommands {
		if c != "+publish" {
			rules = append(rules, c)
		}
	}
	rdb := aclClient(t, "semacat-nopublish", rules...)
	release, acquire := waitAndRelease(t, rdb)
	require.NoError(t, release, "the release that granted the waiter failed")
	require.NoError(t, acquire)
}

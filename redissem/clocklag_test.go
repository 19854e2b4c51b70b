package redissem_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/redissem"
)

// startLaggingRedis starts redis-server with a wall clock that lags the
// machine's by lag, as TIME and so the scripts see it: libfaketime, preloaded
// into redis-server itself, shifts its clock. Not through the faketime
// command, which forks redis-server as its child: killing faketime left
// that child running after the test binary. glibc's malloc goes in front of
// the jemalloc redis-server links, whose start otherwise deadlocks with
// libfaketime's.
func startLaggingRedis(t *testing.T, lag time.Duration, extra ...string) *redisServer {
	t.Helper()
	_, err := os.Stat(libfaketime)
	require.NoError(t, err, "the clock-lag tests need libfaketime; run `make testdeps` or apt-get install -y libfaketime")
	r, err := launchRedis(redisServer{dir: t.TempDir(), args: append([]string{"--appendonly", "no"}, extra...),
		env: []string{"LD_PRELOAD=libc_malloc_debug.so.0 " + libfaketime, fmt.Sprintf("FAKETIME=-%ds", int(lag.Seconds()))}})
	require.NoError(t, err)
	t.Cleanup(r.Kill)
	return r
}

// Tokens come from max(seq + 1, the server's clock), and seq travels with
// the data. A failover that loses a grant also loses its seq, so a token
// the promoted replica issues is above the lost grant's only if the
// replica's clock has passed it: when the replica's clock lags the old
// primary's by more than the replication lag plus the failover's time, a
// stale holder's token beats the new holder's at the fence. WithReplicas
// reports only grants the replica confirmed, so every token a holder was
// given is below the replica's seq, and order holds whatever the clocks.
//
// Each case: a primary and a replica (its clock lagging by lag), a grant
// replicated to both, a failover (the replica promoted) while the old
// primary still serves a handle, a grant there that the replica never
// receives, and a grant on the new primary.
func TestTokenOrderAcrossFailoverWithClockLag(t *testing.T) {
	t.Parallel()
	// replicaWait is how long a grant waits for the replica's confirmation:
	// it costs the whole wait once the replica is gone, and a replica that
	// is there confirms at once, unless the machine is loaded.
	const lag, replicaWait = 30 * time.Second, 3 * time.Second
	for _, tc := range []struct {
		name     string
		lag      time.Duration
		replicas bool
	}{
		{"clocks agree", 0, false},
		{"replica lags", lag, false},
		{"replica lags, WithReplicas", lag, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			primary, err := startRedis(t.TempDir(), false, "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
			require.NoError(t, err)
			defer primary.Kill()
			follow := []string{"--replicaof", "127.0.0.1", strconv.Itoa(primary.Port)}
			var replica *redisServer
			if tc.lag > 0 {
				replica = startLaggingRedis(t, tc.lag, follow...)
			} else {
				replica, err = startRedis(t.TempDir(), false, follow...)
				require.NoError(t, err)
				defer replica.Kill()
			}
			// The old primary's client waits out replicaWait below.
			clientOpts := clientOptions(primary.Addr())
			clientOpts.ReadTimeout = 2 * replicaWait
			old, promoted := redis.NewClient(clientOpts), newClient(t, replica.Addr())
			defer old.Close()
			waitFor(t, "the replica to sync", func() bool {
				return strings.Contains(old.Info(ctx, "replication").Val(), "state=online")
			})
			ahead := old.Time(ctx).Val().Sub(promoted.Time(ctx).Val())
			assert.InDelta(t, tc.lag.Seconds(), ahead.Seconds(), 1, "the replica's clock lags by %v, not %v", ahead, tc.lag)

			var opts []redissem.Option
			if tc.replicas {
				opts = append(opts, redissem.WithReplicas(1, replicaWait))
			}
			before := newSem(t, old, 2, opts...)
			replicated, err := before.AcquirePermit(ctx, 1)
			require.NoError(t, err)
			acks, err := old.Wait(ctx, 1, 5*time.Second).Result()
			require.NoError(t, err)
			require.Equal(t, int64(1), acks, "the first grant did not reach the replica")

			require.NoError(t, promoted.ReplicaOf(ctx, "NO", "ONE").Err(), "the failover")
			waitFor(t, "the old primary to lose its replica", func() bool {
				return strings.Contains(old.Info(ctx, "replication").Val(), "connected_slaves:0")
			})
			lost, lostErr := before.AcquirePermit(ctx, 1)

			after, err := redissem.New(context.Background(), promoted, before.Name(), 2)
			require.NoError(t, err)
			defer after.Close()
			next, err := after.AcquirePermit(ctx, 1)
			require.NoError(t, err)
			assert.Greater(t, next.Token(), replicated.Token(), "a replicated grant's token is below every later one")

			switch {
			case tc.replicas:
				require.ErrorIs(t, lostErr, redissem.ErrNotReplicated, "the unreplicated grant was reported")
			case tc.lag > 0:
				require.NoError(t, lostErr)
				assert.Less(t, next.Token(), lost.Token(), "the hazard: the new grant's token is below the lost grant's")
			default:
				require.NoError(t, lostErr)
				assert.Greater(t, next.Token(), lost.Token(), "with clocks that agree, the new token is above the lost grant's")
			}
		})
	}
}

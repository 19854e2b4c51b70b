package etcdsem_test

import (
	"context"
	"flag"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/semacat/sem/etcdsem"
)

var cycles = flag.Int("etcdsem.cycles", 3000, "Acquire/Release cycles of TestKeyspaceStaysBoundedWithAutoCompaction, in 3 phases")

// Every write to etcd is a new revision, kept until compacted, and etcd
// does not compact unless told to (--auto-compaction-mode/-retention): a
// busy semaphore's database grows by about two revisions per acquisition,
// toward the space quota, after which every write fails. With periodic
// auto-compaction on, the space in use stays bounded over a long run;
// without it, it grows with every phase (the broken variant, which shows
// that the measurement can tell them apart).
func TestKeyspaceStaysBoundedWithAutoCompaction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"auto-compaction on", []string{"--auto-compaction-mode=periodic", "--auto-compaction-retention=1s"}},
		{"auto-compaction off", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := startCluster(server.bin, t.TempDir(), 1, tc.flags...)
			require.NoError(t, err)
			defer c.close()
			cl, err := c.client()
			require.NoError(t, err)
			defer cl.Close()
			ctx := context.Background()
			s, err := etcdsem.New(ctx, cl, uniqueName(t), 1)
			require.NoError(t, err)
			defer s.Close()

			start := dbStatus(t, cl, c.Endpoints[0])
			const phases = 3
			inUse := make([]int64, phases)
			for p := range inUse {
				for range *cycles / phases {
					require.NoError(t, s.Acquire(ctx, 1))
					require.NoError(t, s.ReleaseErr(ctx, 1))
				}
				if tc.flags != nil {
					waitCompacted(t, cl)
				}
				inUse[p] = settledInUse(t, cl, c.Endpoints[0])
			}
			end := dbStatus(t, cl, c.Endpoints[0])
			t.Logf("%d cycles: database %d KB -> %d KB (in use %d KB -> %v KB by phase)", *cycles,
				start.DbSize>>10, end.DbSize>>10, start.DbSizeInUse>>10, kb(inUse))
			// A phase of 1000 cycles writes about 370 KB that only compaction
			// frees; compacted, what is left is the size record, the keys of
			// the last second, and bbolt's own pages.
			const bound = 256 << 10
			if tc.flags != nil {
				for p, n := range inUse {
					assert.LessOrEqual(t, n, int64(bound), "space in use after phase %d with auto-compaction on", p+1)
				}
			} else {
				assert.Greater(t, inUse[phases-1], int64(2*bound),
					"the space in use did not grow without compaction: the measurement tells nothing")
			}
		})
	}
}

// dbStatus asks the member at endpoint for its database sizes.
func dbStatus(t *testing.T, cl *clientv3.Client, endpoint string) *clientv3.StatusResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := cl.Status(ctx, endpoint)
	require.NoError(t, err)
	return st
}

// waitCompacted waits until the server has compacted away the revisions
// written so far but the last few: a read at one of them fails as
// compacted. It polls, as the compactor runs on the server's own clock.
func waitCompacted(t *testing.T, cl *clientv3.Client) {
	t.Helper()
	resp, err := cl.Get(context.Background(), "/")
	require.NoError(t, err)
	old := resp.Header.Revision - 10
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := cl.Get(context.Background(), "/", clientv3.WithRev(old))
		if err != nil {
			require.ErrorContains(t, err, "compacted")
			return
		}
		require.True(t, time.Now().Before(deadline), "revision %d not compacted within 20s", old)
		time.Sleep(100 * time.Millisecond)
	}
}

// settledInUse returns the space in use once it stops changing: the
// compactor marks the revisions compacted first, and frees their space in
// batches after. It polls, as the compactor runs on the server.
func settledInUse(t *testing.T, cl *clientv3.Client, endpoint string) int64 {
	t.Helper()
	last := dbStatus(t, cl, endpoint).DbSizeInUse
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		// bbolt frees pages at the commit after the one that released them:
		// a write makes one.
		_, err := cl.Put(context.Background(), "/etcdsem-test/commit", "")
		require.NoError(t, err)
		time.Sleep(300 * time.Millisecond)
		now := dbStatus(t, cl, endpoint).DbSizeInUse
		if now == last {
			break
		}
		last = now
	}
	return last
}

func kb(v []int64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprint(x >> 10)
	}
	return s
}

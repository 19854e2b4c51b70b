package servers

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// A Redis snapshots what was written to its RDB file, loses nothing it
// snapshotted to a kill, and reads it back when restarted on its port.
func TestRedisSnapshotSurvivesKill(t *testing.T) {
	r := StartRedis(t, filepath.Join(t.TempDir(), "redis"))
	save, err := Command(r.Addr(), "CONFIG", "GET", "save")
	require.NoError(t, err)
	assert.Equal(t, "save 1 1", save, "the server does not snapshot every second that saw a write")

	_, err = Command(r.Addr(), "SET", "k", "v")
	require.NoError(t, err)
	require.NoError(t, waitFor(10*time.Second, func() error {
		return expect(r.Addr(), "rdb_changes_since_last_save:0", "INFO", "persistence")
	}), "the write was never snapshotted")
	addr := r.Addr()
	r.Kill()
	assert.Error(t, expect(addr, "PONG", "PING"), "the server still answers after Kill")

	r.Restart()
	assert.Equal(t, addr, r.Addr(), "Restart moved the server to another port")
	v, err := Command(r.Addr(), "GET", "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v, "the restarted server lost a snapshotted write")
}

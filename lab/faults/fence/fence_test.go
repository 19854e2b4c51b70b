package fence_test

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem/lab/faults/fence"
	"github.com/semacat/sem/lab/faults/history"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The store accepts equal and larger tokens, rejects smaller ones unless
// unfenced, keeps keys apart, and logs each decision in order.
func TestStoreFencesAndLogs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.jsonl")
	s, err := fence.Start(path)
	require.NoError(t, err)
	c := &http.Client{Transport: &http.Transport{}}
	ctx := context.Background()
	steps := []struct {
		key       string
		token     int64
		unfenced  bool
		wantAdmit bool
	}{
		{"a", 5, false, true},
		{"a", 5, false, true},
		{"a", 4, false, false},
		{"b", 1, false, true},
		{"a", 3, true, true},
		{"a", 4, false, false},
		{"a", 6, false, true},
	}
	for i, st := range steps {
		ok, err := fence.Write(ctx, c, s.URL(), st.key, st.token, "w", st.unfenced)
		require.NoError(t, err)
		assert.Equal(t, st.wantAdmit, ok, "step %d", i)
	}
	c.CloseIdleConnections()
	require.NoError(t, s.Close())
	events, err := history.Read(path)
	require.NoError(t, err)
	require.Len(t, events, len(steps))
	for i, e := range events {
		want := history.WriteRejected
		if steps[i].wantAdmit {
			want = history.WriteAccepted
		}
		assert.Equal(t, want, e.Kind, "event %d", i)
		assert.Equal(t, steps[i].token, e.Token)
		assert.Equal(t, "store", e.Worker)
	}
}

package observe_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/internal/observe"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// A wait reports to the function installed when it started, once, with its
// weight, its error and its times in order; with none installed it reports
// nothing.
func TestWaitReportsToInstalledFunction(t *testing.T) {
	var h observe.Hook
	var got []sem.WaitEvent
	w := h.Start(3) // before any function is installed
	h.Set(func(e sem.WaitEvent) { got = append(got, e) })
	assert.NoError(t, w.End(nil))
	assert.Empty(t, got, "a wait started with no function installed reported")

	failed := errors.New("failed")
	w = h.Start(2)
	h.Set(nil) // removed while the wait runs: the wait still reports
	assert.Equal(t, failed, w.End(failed))
	require.Len(t, got, 1)
	assert.Equal(t, int64(2), got[0].N)
	assert.Equal(t, failed, got[0].Err)
	assert.False(t, got[0].Start.IsZero())
	assert.False(t, got[0].End.Before(got[0].Start))

	assert.NoError(t, h.Start(1).End(nil))
	assert.Len(t, got, 1, "reported after Set(nil)")
}

package group_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/group"
	"github.com/semacat/sem/weighted"
)

func TestResultsKeepSubmissionOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := group.WithResults[int](t.Context(), weighted.New(8))
		for i := range 5 {
			r.Go(1, func() (int, error) {
				time.Sleep(time.Duration(5-i) * time.Second) // the last ends first
				return i * i, nil
			})
		}
		got, err := r.Wait()
		require.NoError(t, err)
		assert.Equal(t, []int{0, 1, 4, 9, 16}, got)
	})
}

func TestResultsOfFailedCallsAreZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		r, ctx := group.WithResults[string](t.Context(), weighted.New(1))
		r.Go(1, func() (string, error) { return "a", nil })
		r.Go(1, func() (string, error) { return "b", boom })
		r.Go(1, func() (string, error) { return "c", ctx.Err() }) // never runs: the context is done
		got, err := r.Wait()
		assert.ErrorIs(t, err, boom)
		assert.Equal(t, []string{"a", "", ""}, got)
	})
}

func TestResultsTryGoTakesAPlaceOnlyWhenItStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := group.WithResults[string](t.Context(), weighted.New(2))
		release := make(chan struct{})
		require.True(t, r.TryGo(2, func() (string, error) { <-release; return "big", nil }))
		assert.False(t, r.TryGo(1, func() (string, error) { return "refused", nil }))
		close(release)
		synctest.Wait()
		require.True(t, r.TryGo(1, func() (string, error) { return "small", nil }))
		got, err := r.Wait()
		require.NoError(t, err)
		assert.Equal(t, []string{"big", "small"}, got)
	})
}

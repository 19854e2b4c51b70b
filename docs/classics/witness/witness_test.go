package witness_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/semacat/sem/docs/classics/witness"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// hold runs n holders, each for a millisecond; with overlap they all hold
// at once, without it one after the other.
func hold(w *witness.Witness, n int, overlap bool) {
	turn := make(chan struct{}, 1) // a lock a synctest bubble can wait on
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if !overlap {
				turn <- struct{}{}
				defer func() { <-turn }()
			}
			w.Hold(func() { time.Sleep(time.Millisecond) })
		})
	}
	wg.Wait()
}

// On a semaphore of size 1, holders one at a time leave a clean report;
// overlapping holders are counted, and so are the updates they lost.
func TestReportOnSizeOne(t *testing.T) {
	tests := []struct {
		name    string
		holders int
		overlap bool
		want    witness.Report
		wantErr string // empty: the report is clean
	}{
		{"OneAtATime", 5, false, witness.Report{Size: 1, Entries: 5, Peak: 1, LostUpdates: 0}, ""},
		{"Overlapping", 3, true, witness.Report{Size: 1, Entries: 3, Peak: 3, LostUpdates: 2},
			"witness: 3 holders at once on a semaphore of size 1 (3 entries, 2 lost updates)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				w := witness.New(1)
				hold(w, tt.holders, tt.overlap)
				r := w.Report()
				assert.Equal(t, tt.want, r)
				if tt.wantErr == "" {
					assert.NoError(t, r.Err())
				} else {
					assert.EqualError(t, r.Err(), tt.wantErr)
				}
			})
		})
	}
}

// On a larger semaphore, holders up to its size are no violation, and
// their lost updates mean nothing.
func TestHoldersUpToTheSizeAreClean(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := witness.New(3)
		hold(w, 3, true)
		assert.NoError(t, w.Report().Err())
		hold(w, 4, true)
		assert.EqualError(t, w.Report().Err(), "witness: 4 holders at once on a semaphore of size 3 (7 entries, 5 lost updates)")
	})
}

func TestLostUpdatesAloneAreReported(t *testing.T) {
	r := witness.Report{Size: 1, Entries: 4, Peak: 1, LostUpdates: 1}
	assert.EqualError(t, r.Err(), "witness: 1 of 4 updates made while holding the semaphore were lost")
}

func TestNewPanicsOnNoPermit(t *testing.T) {
	assert.PanicsWithValue(t, "witness: New: size 0, want at least 1", func() { witness.New(0) })
}

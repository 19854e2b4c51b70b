package acquiretest

import (
	"testing"
	"testing/synctest"

	"github.com/semacat/sem"
)

// ReportWakeups reports the wake-ups that a run of b.N cycles counted, as
// wakeups/op, and per Release that woke any, as wakeups/batch; batches
// counts those Releases.
func ReportWakeups(b *testing.B, wakeups, batches int64) {
	b.ReportMetric(float64(wakeups)/float64(b.N), "wakeups/op")
	if batches > 0 {
		b.ReportMetric(float64(wakeups)/float64(batches), "wakeups/batch")
	}
}

// CheckWakeupCounts checks that counts, which return the waiters s has
// woken and the Releases that woke any, count what they say: a Release
// that serves nobody wakes no batch, one whose permits serve two queued
// waiters at once is one batch of two wake-ups. It queues requests of 3,
// 1 and 1 on s, a semaphore of 4 permits, behind all of them held, and
// gives the permits back so that the first two are woken together and
// the last alone. Call it inside a testing/synctest bubble.
func CheckWakeupCounts(t *testing.T, s sem.Semaphore, counts func() (wakeups, batches int64)) {
	t.Helper()
	if !s.TryAcquire(4) {
		t.Fatal("TryAcquire(4) on a new semaphore of 4 failed")
	}
	var calls []*Call
	defer func() {
		for _, c := range calls {
			c.Cancel()
		}
	}()
	for _, n := range []int64{3, 1, 1} {
		calls = append(calls, Go(s, n))
		synctest.Wait()
	}
	s.Release(1) // 1 free: the head wants 3
	synctest.Wait()
	if _, batches := counts(); batches != 0 {
		t.Errorf("a Release that served nobody counted as a batch: %d batches", batches)
	}
	s.Release(3) // 4 free: the 3 and the first 1
	synctest.Wait()
	if !calls[0].Served() || !calls[1].Served() || calls[2].Returned() {
		t.Fatalf("with 4 permits back, served %v, %v and %v; want the 3 and the first 1",
			calls[0].Served(), calls[1].Served(), calls[2].Served())
	}
	s.Release(1) // the first 1 gives its permit back: the last 1
	synctest.Wait()
	if !calls[2].Served() {
		t.Fatal("the last request of 1 was not served by the permit given back")
	}
	s.Release(4) // nobody waits
	if wakeups, batches := counts(); wakeups != 3 || batches != 2 {
		t.Errorf("counted %d wake-ups in %d batches, want 3 in 2", wakeups, batches)
	}
}

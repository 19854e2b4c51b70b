// Package scenarios stages the situations that tell the semaphore
// strategies apart, each runnable against any strategy and recorded lane
// by lane with package timeline, for the pictures of docs/timelines.md.
//
// A scenario must run inside a testing/synctest bubble: it paces its
// goroutines with time.Sleep on the bubble's fake clock, and gives every
// event that decides the outcome an instant of its own, so that a run is
// the same on every machine and under the race detector's randomised
// scheduling. Run sets GOMAXPROCS to 1 while it runs, so that a goroutine
// that releases and at once acquires again (as spinsem's barging picture
// needs) keeps running until it blocks, as it would on a busy machine.
package scenarios

import (
	"context"
	"runtime"
	"sync"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/lab/timeline"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

// Strategy is a semaphore constructor, by the name the docs use.
type Strategy struct {
	Name string
	New  func(size int64) sem.Semaphore
}

// Strategies are every local strategy, the fair variant of condsem apart.
var Strategies = []Strategy{
	{"chansem", func(size int64) sem.Semaphore { return chansem.New(size) }},
	{"condsem", func(size int64) sem.Semaphore { return condsem.New(size) }},
	{"condsem-fair", func(size int64) sem.Semaphore { return condsem.NewFair(size) }},
	{"weighted", func(size int64) sem.Semaphore { return weighted.New(size) }},
	{"spinsem", func(size int64) sem.Semaphore { return spinsem.New(size) }},
}

// Scenario is one staged situation.
type Scenario struct {
	// Name is the scenario's part of the picture's file name.
	Name string
	// Title describes the situation; the picture's title is the
	// strategy's name and this.
	Title string
	// stage plays the scenario on semaphores from newSem, recording
	// through rec, and returns when every goroutine it started has.
	stage func(rec *timeline.Recorder, newSem func(size int64) sem.Semaphore)
}

// Run plays the scenario against the strategy, inside the caller's
// testing/synctest bubble, and returns the timeline.
func (sc Scenario) Run(st Strategy) timeline.Timeline {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rec := timeline.New()
	sc.stage(rec, st.New)
	return rec.Timeline()
}

// All are every scenario, in the order of docs/timelines.md.
var All = []Scenario{
	{"herd", "three waiters for 1, 2 and 3 of 3 permits, released one by one", herd},
	{"barging", "a goroutine that releases and acquires again, and two waiters", barging},
	{"lost-wakeup", "a woken waiter finds the permit taken again, and sleeps", lostWakeup},
	{"canceled-head", "the head of the queue gives up while a small request waits behind it", canceledHead},
	{"large", "a request for every permit among small ones that keep coming", large},
	{"philosophers-deadlock", "five philosophers, each takes the left fork first", dinner(leftFirst)},
	{"philosophers-ordered", "five philosophers, each takes the lower-numbered fork first", dinner(lowerFirst)},
}

// Lookup returns the scenario and the strategy called so, and whether both
// exist.
func Lookup(scenario, strategy string) (Scenario, Strategy, bool) {
	var sc Scenario
	var st Strategy
	var found int
	for _, s := range All {
		if s.Name == scenario {
			sc, found = s, found+1
		}
	}
	for _, s := range Strategies {
		if s.Name == strategy {
			st, found = s, found+1
		}
	}
	return sc, st, found == 2
}

// watch makes the scenario's one semaphore, of the given size, watched as
// "s", and returns it with the instant the scenario starts.
func watch(rec *timeline.Recorder, newSem func(int64) sem.Semaphore, size int64) (*timeline.Watched, time.Time) {
	return rec.Watch("s", newSem(size)), time.Now()
}

// holdAll returns the lane "holder", holding all size permits of s.
func holdAll(s *timeline.Watched, size int64) sem.Semaphore {
	holder := s.Lane("holder")
	_ = holder.Acquire(context.Background(), size)
	return holder
}

// sleepUntil sleeps until d after origin on the bubble's clock.
func sleepUntil(origin time.Time, d time.Duration) {
	time.Sleep(time.Until(origin.Add(d)))
}

// hold acquires n permits through l, keeps them for d and releases them;
// it reports whether the Acquire succeeded.
func hold(ctx context.Context, l sem.Semaphore, n int64, d time.Duration) bool {
	if l.Acquire(ctx, n) != nil {
		return false
	}
	time.Sleep(d)
	l.Release(n)
	return true
}

// herd: a holder owns all 3 permits and gives them back one at a time,
// each a second apart; three waiters ask for 1, 2 and 3, so that exactly
// one of them can proceed at each change, whatever the strategy. A
// Broadcast wakes the others for nothing; a queue wakes only the one it
// serves.
func herd(rec *timeline.Recorder, newSem func(int64) sem.Semaphore) {
	s, origin := watch(rec, newSem, 3)
	defer s.Stop()
	holder := holdAll(s, 3)
	var wg sync.WaitGroup
	for i, n := range []int64{1, 2, 3} {
		l := s.Lane(waiterName(n))
		wg.Go(func() {
			sleepUntil(origin, time.Duration(i+1)*100*time.Millisecond)
			hold(context.Background(), l, n, 2500*time.Millisecond)
		})
	}
	for i := range 3 {
		sleepUntil(origin, time.Duration(i+1)*time.Second)
		holder.Release(1)
	}
	wg.Wait()
}

// waiterName is the lane of a waiter for n permits.
func waiterName(n int64) string { return "wants " + string(rune('0'+n)) }

// barging: on one permit, a goroutine holds briefly, releases and at once
// acquires again, a dozen times; one waiter arrives during its first hold
// and another some holds later, each holding as briefly once served. A
// strategy that lets the running goroutine take the permit back starves
// the waiter until it detects the starvation (spinsem after its starvation
// threshold, as sync.Mutex); a queue serves the waiter at the first
// Release.
func barging(rec *timeline.Recorder, newSem func(int64) sem.Semaphore) {
	barge(rec, newSem, 12, 400*time.Microsecond,
		arrival{"waiter 1", 100 * time.Microsecond}, arrival{"waiter 2", 2500 * time.Microsecond})
}

// lostWakeup: on one permit, a barger holds for a moment, releases and at
// once acquires again, eight times; a waiter arrives during its first hold.
// A Release that wakes the waiter without handing it the permit lets the
// barger, still running, take the permit back before the waiter runs: the
// waiter wakes to find it taken and goes back to sleep, a wake-up lost to
// the barger, until the semaphore hands it the permit.
func lostWakeup(rec *timeline.Recorder, newSem func(int64) sem.Semaphore) {
	barge(rec, newSem, 8, 200*time.Microsecond, arrival{"waiter", 100 * time.Microsecond})
}

// arrival is a waiter's lane and the instant it arrives.
type arrival struct {
	lane string
	at   time.Duration
}

// barge plays one permit that the lane "barger" holds for d, releases and
// at once acquires again, rounds times, while each waiter arrives at its
// instant and, once served, holds the permit as briefly.
func barge(rec *timeline.Recorder, newSem func(int64) sem.Semaphore, rounds int, d time.Duration, waiters ...arrival) {
	s, origin := watch(rec, newSem, 1)
	defer s.Stop()
	var wg sync.WaitGroup
	barger := s.Lane("barger")
	wg.Go(func() {
		for range rounds {
			hold(context.Background(), barger, 1, d)
		}
	})
	for _, w := range waiters {
		l := s.Lane(w.lane)
		wg.Go(func() {
			sleepUntil(origin, w.at)
			hold(context.Background(), l, 1, d)
		})
	}
	wg.Wait()
}

// canceledHead: size 2, both held; a request for 2 arrives first, with a
// deadline, then a request for 1. One permit comes back before the head's
// deadline, the other after it. A strict queue keeps the small request behind the head
// until the head gives up; a strategy without a queue serves it at once.
func canceledHead(rec *timeline.Recorder, newSem func(int64) sem.Semaphore) {
	s, origin := watch(rec, newSem, 2)
	defer s.Stop()
	holder := holdAll(s, 2)
	var wg sync.WaitGroup
	head := s.Lane("head, wants 2")
	wg.Go(func() {
		sleepUntil(origin, 100*time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 1900*time.Millisecond)
		defer cancel()
		hold(ctx, head, 2, time.Second)
	})
	small := s.Lane("wants 1")
	wg.Go(func() {
		sleepUntil(origin, 200*time.Millisecond)
		hold(context.Background(), small, 1, 500*time.Millisecond)
	})
	sleepUntil(origin, time.Second)
	holder.Release(1)
	sleepUntil(origin, 3*time.Second)
	holder.Release(1)
	wg.Wait()
}

// large: size 3; three goroutines, starting a little apart, each take 1
// permit and hold it, four times in a row; while they do, a request for
// all 3 arrives. Without a queue the permits are never all free at once while
// the small ones cycle; with one, the small ones wait behind it.
func large(rec *timeline.Recorder, newSem func(int64) sem.Semaphore) {
	s, origin := watch(rec, newSem, 3)
	defer s.Stop()
	var wg sync.WaitGroup
	for i := range 3 {
		l := s.Lane("small " + string(rune('1'+i)))
		wg.Go(func() {
			sleepUntil(origin, time.Duration(i)*300*time.Millisecond)
			for range 4 {
				hold(context.Background(), l, 1, time.Second)
			}
		})
	}
	big := s.Lane("large, wants 3")
	wg.Go(func() {
		sleepUntil(origin, 500*time.Millisecond)
		hold(context.Background(), big, 3, 500*time.Millisecond)
	})
	wg.Wait()
}

package judge

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
)

// ReadersWriters is what problems 10 and 11 ask for: a room that readers
// share and a writer has alone.
type ReadersWriters interface {
	ReadLock(ctx context.Context) error
	ReadUnlock(ctx context.Context) error
	WriteLock(ctx context.Context) error
	WriteUnlock(ctx context.Context) error
}

// A visit to the room: who arrives when, and for how long it stays.
type visit struct {
	who      string
	writer   bool
	at, stay int // ticks
}

// The scripted visits set the classic traps; seeded ones follow.
//   - A writer writes from 0 while two readers arrive: the second must not
//     slip in because the first is already counted.
//   - Two readers read together from 60: they must share the room.
//   - A writer arrives at 90 while they read and waits; a reader at 130 and
//     a writer at 140 come while it waits: with writer priority the reader
//     must let both writers go first.
//   - A writer writes from 400 to 480; a reader arrives at 420, while it writes,
//     and a writer at 430: with writer priority the reader must wait for
//     the second writer too, even if it came to the room first.
var scriptedVisits = []visit{
	{"writer 1", true, 0, 30},
	{"reader 1", false, 10, 5}, {"reader 2", false, 20, 5},
	{"reader 3", false, 60, 80}, {"reader 4", false, 65, 80},
	{"writer 2", true, 90, 20},
	{"reader 5", false, 130, 5},
	{"writer 3", true, 140, 20},
	{"writer 4", true, 400, 80},
	{"reader 6", false, 420, 5},
	{"writer 5", true, 430, 20},
}

func readersWritersProblem(writerPriority bool) check.Problem[func(check.NewSemaphore) ReadersWriters] {
	rules := []func([]check.Event) error{writersAlone, readersShare}
	if writerPriority {
		rules = append(rules, writersFirst)
	}
	return check.Problem[func(check.NewSemaphore) ReadersWriters]{
		Seeds: seeds,
		Scenario: func(r *check.Run, newRoom func(check.NewSemaphore) ReadersWriters) {
			room := newRoom(r.NewSemaphore)
			visits := scriptedVisits
			for i := range 6 {
				visits = append(visits, visit{name("late", i), i < 2, 200 + r.Rand(60), 1 + r.Rand(10)})
			}
			for _, v := range visits {
				r.Go(v.who, func(ctx context.Context) error { return v.enter(ctx, r, room) })
			}
		},
		Rules: func(log []check.Event) error {
			var errs []error
			for _, rule := range rules {
				errs = append(errs, rule(log))
			}
			return errors.Join(errs...)
		},
	}
}

func (v visit) enter(ctx context.Context, r *check.Run, room ReadersWriters) error {
	lock, unlock, what := room.ReadLock, room.ReadUnlock, "read"
	if v.writer {
		lock, unlock, what = room.WriteLock, room.WriteUnlock, "write"
	}
	r.Sleep(time.Duration(v.at) * check.Tick)
	r.Record(v.who, "arrive to "+what, 0)
	if err := lock(ctx); err != nil {
		return err
	}
	r.Work(v.who, what, 0, time.Duration(v.stay)*check.Tick)
	return unlock(ctx)
}

// writersAlone: a writer never shares the room.
func writersAlone(log []check.Event) error {
	return check.Replay(log, func(e check.Event, in *check.Inside) error {
		switch {
		case e.End:
		case e.What == "write" && in.Count("read")+in.Count("write") > 0:
			return fmt.Errorf("%v while %v read and %v wrote", e, in.Who("read"), in.Who("write"))
		case e.What == "read" && in.Count("write") > 0:
			return fmt.Errorf("%v while %v wrote", e, in.Who("write"))
		}
		return nil
	})
}

// readersShare: readers who come while others read get in with them (the
// scripted readers 3 and 4 do).
func readersShare(log []check.Event) error {
	shared := false
	_ = check.Replay(log, func(e check.Event, in *check.Inside) error {
		shared = shared || (e.What == "read" && !e.End && in.Count("read") > 0)
		return nil
	})
	if !shared {
		return errors.New("readers never read together")
	}
	return nil
}

// doorShutAfter is how long a writer may take to shut the door on readers
// once it has arrived: a few semaphore operations, each nudged.
const doorShutAfter = 30 * check.Tick

// writersFirst: a reader who arrives while a writer writes, or has waited
// longer than doorShutAfter, does not read until no writer writes or
// waits.
func writersFirst(log []check.Event) error {
	waiting := map[string]time.Duration{} // writer -> arrival
	writing := map[string]bool{}
	heldBack := map[string]bool{} // readers
	doorShut := func(now time.Duration) bool {
		for _, at := range waiting {
			if now-at > doorShutAfter {
				return true
			}
		}
		return len(writing) > 0
	}
	for _, e := range log {
		switch {
		case e.What == "arrive to write":
			waiting[e.Who] = e.At
		case e.What == "write" && !e.End:
			delete(waiting, e.Who)
			writing[e.Who] = true
		case e.What == "write":
			delete(writing, e.Who)
		}
		shut := doorShut(e.At)
		switch {
		case !shut:
			clear(heldBack)
		case e.What == "arrive to read":
			heldBack[e.Who] = true
		case e.What == "read" && !e.End && heldBack[e.Who]:
			return fmt.Errorf("%v, although it came while writers wrote or waited (%s)", e, writers(writing, waiting))
		}
	}
	return nil
}

// writers says who writes and who waits to write, in the students' terms:
// "writer 2 writing, writer 3 waiting since" and the simulated time.
func writers(writing map[string]bool, waiting map[string]time.Duration) string {
	var who []string
	for _, w := range slices.Sorted(maps.Keys(writing)) {
		who = append(who, w+" writing")
	}
	for _, w := range slices.Sorted(maps.Keys(waiting)) {
		who = append(who, fmt.Sprintf("%s waiting since %v", w, waiting[w]))
	}
	return strings.Join(who, ", ")
}

// Lightswitch is what problem 8 asks for: the first in locks the room, the
// last out unlocks it.
type Lightswitch interface {
	Lock(ctx context.Context, room sem.Semaphore) error
	Unlock(ctx context.Context, room sem.Semaphore) error
}

// roomWithSwitch is readers-writers built on any Lightswitch.
type roomWithSwitch struct {
	room     sem.Semaphore
	switched Lightswitch
}

func (r roomWithSwitch) ReadLock(ctx context.Context) error { return r.switched.Lock(ctx, r.room) }

func (r roomWithSwitch) ReadUnlock(ctx context.Context) error { return r.switched.Unlock(ctx, r.room) }

func (r roomWithSwitch) WriteLock(ctx context.Context) error { return r.room.Acquire(ctx, 1) }

func (r roomWithSwitch) WriteUnlock(context.Context) error {
	r.room.Release(1)
	return nil
}

// WithSwitch builds the readers-writers of problem 8 on a lightswitch:
// writers take the room, readers share it through the switch.
func WithSwitch(newSwitch func(check.NewSemaphore) Lightswitch) func(check.NewSemaphore) ReadersWriters {
	return func(n check.NewSemaphore) ReadersWriters { return roomWithSwitch{n(1, 1), newSwitch(n)} }
}

// lightswitchProblem is readers-writers on a lightswitch.
func lightswitchProblem() check.Problem[func(check.NewSemaphore) Lightswitch] {
	rw := readersWritersProblem(false)
	return check.Problem[func(check.NewSemaphore) Lightswitch]{
		Seeds: rw.Seeds,
		Scenario: func(r *check.Run, newSwitch func(check.NewSemaphore) Lightswitch) {
			rw.Scenario(r, WithSwitch(newSwitch))
		},
		Rules: rw.Rules,
	}
}

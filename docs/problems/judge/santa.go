package judge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/semacat/sem/docs/problems/check"
)

// Workshop is what problem 19 asks for: Santa, his reindeer and his elves.
type Workshop interface {
	Santa(ctx context.Context, prepareSleigh, helpElves func()) error
	Reindeer(ctx context.Context, getHitched func()) error
	Elf(ctx context.Context, getHelp func()) error
}

const (
	christmases = 2
	firstHelp   = 150 * check.Tick
	// elfHelpTime is how long an elf takes over Santa's help: longer than
	// Santa takes to go back to sleep and wake again, so that when he wakes
	// after helping, the elves he helped are still counted.
	elfHelpTime = 30 * check.Tick
	// wakeLag is how long the ninth reindeer may take to wake Santa once it
	// is back: a few semaphore operations, each nudged, some waiting for
	// the mutex behind the other reindeer.
	wakeLag = 60 * check.Tick
	// santaSleepsIn is how late Santa begins to serve: by then the first
	// three elves need help and all nine reindeer are back, for longer than
	// wakeLag, so that he must choose, and choose the reindeer.
	santaSleepsIn = 100 * check.Tick
)

// Problem19 is Santa Claus. The scenario: Santa sleeps in, and wakes to
// three elves and the whole herd waiting, so he must choose the reindeer.
// Then he helps the three elves for a long time, and when he is done the
// group he helped is still there. Then three more elves, three at random,
// and the reindeer's second Christmas.
var Problem19 = check.Problem[func(check.NewSemaphore) Workshop]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newWorkshop func(check.NewSemaphore) Workshop) {
		w := newWorkshop(r.NewSemaphore)
		helped := false
		r.Serve("santa", func(ctx context.Context) error {
			r.Sleep(santaSleepsIn)
			return w.Santa(ctx, func() { r.Act("santa", "prepare sleigh", 0) }, func() {
				d := check.Tick
				if !helped {
					helped, d = true, firstHelp
				}
				r.Work("santa", "help elves", 0, d)
			})
		})
		for i := range Herd {
			who := name("reindeer", i)
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(5+i) * check.Tick)
				return each(christmases, func(int) error {
					r.Record(who, "back", 0)
					if err := w.Reindeer(ctx, func() { r.Act(who, "get hitched", 0) }); err != nil {
						return err
					}
					r.Sleep(time.Duration(200+r.Rand(50)) * check.Tick) // vacation
					return nil
				})
			})
		}
		for i := range 3 * ElfGroup {
			who := name("elf", i)
			at := []int{0, 15, 300 + r.Rand(100)}[i/ElfGroup] + i%ElfGroup
			r.Go(who, func(ctx context.Context) error {
				r.Sleep(time.Duration(at) * check.Tick)
				r.Record(who, "need help", 0)
				return w.Elf(ctx, func() { r.Work(who, "get help", 0, elfHelpTime) })
			})
		}
	},
	Rules: func(log []check.Event) error { return errors.Join(herdsAndGroups(log), reindeerFirst(log)) },
}

// herdsAndGroups: Santa prepares the sleigh only when nine reindeer are
// back, and then nine get hitched; he helps elves only when three need
// help, and then three get help.
func herdsAndGroups(log []check.Event) error {
	back, needHelp := map[string]bool{}, map[string]bool{}
	hitched, helped := Herd, ElfGroup // since the last sleigh, the last help
	for _, e := range log {
		if e.End {
			continue
		}
		switch e.What {
		case "back":
			back[e.Who] = true
		case "need help":
			needHelp[e.Who] = true
		case "prepare sleigh":
			if len(back) < Herd {
				return fmt.Errorf("%v with only %d of %d reindeer back", e, len(back), Herd)
			}
			if hitched < Herd {
				return fmt.Errorf("%v again while %d reindeer of the last sleigh are not hitched yet", e, Herd-hitched)
			}
			hitched = 0
		case "help elves":
			if len(needHelp) < ElfGroup {
				return fmt.Errorf("%v with %s waiting for help, not a group of %d", e, elves(len(needHelp)), ElfGroup)
			}
			if helped < ElfGroup {
				return fmt.Errorf("%v again while %d elves of the last group have not got help yet", e, ElfGroup-helped)
			}
			helped = 0
		case "get hitched":
			delete(back, e.Who)
			if hitched == Herd {
				return fmt.Errorf("%v before Santa began to prepare its sleigh", e)
			}
			hitched++
		case "get help":
			delete(needHelp, e.Who)
			if helped == ElfGroup {
				return fmt.Errorf("%v before Santa began to help its group", e)
			}
			helped++
		}
	}
	return nil
}

// reindeerFirst: Santa never starts helping elves while all nine reindeer
// have been back for longer than wakeLag.
func reindeerFirst(log []check.Event) error {
	back := map[string]time.Duration{}
	for _, e := range log {
		switch {
		case e.What == "back":
			back[e.Who] = e.At
		case e.What == "get hitched":
			delete(back, e.Who)
		case e.What == "help elves" && !e.End && len(back) == Herd && e.At-latest(back) > wakeLag:
			return fmt.Errorf("%v while all %d reindeer have been back since %v", e, Herd, latest(back))
		}
	}
	return nil
}

func latest(times map[string]time.Duration) time.Duration {
	var last time.Duration
	for _, t := range times {
		last = max(last, t)
	}
	return last
}

// elves counts n elves in words: "1 elf", "2 elves".
func elves(n int) string {
	if n == 1 {
		return "1 elf"
	}
	return fmt.Sprintf("%d elves", n)
}

package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

// leaveAtOnce leaves as soon as it has dined.
type leaveAtOnce struct{}

func (leaveAtOnce) Student(_ context.Context, sit, dine, leave func()) error {
	sit()
	dine()
	leave()
	return nil
}

func TestDiningHall(t *testing.T) {
	type solution = func(check.NewSemaphore) judge.DiningHall
	judgeAll(t, judge.Problem26,
		official(func(n check.NewSemaphore) judge.DiningHall { return solutions.NewDiningHall(n) },
			check.Right[solution]{
				Name:     "Handshake",
				Solution: func(n check.NewSemaphore) judge.DiningHall { return newHandshakeHall(n) },
			}),
		check.Wrong[solution]{
			Name:     "LeaveAtOnce",
			Solution: func(check.NewSemaphore) judge.DiningHall { return leaveAtOnce{} },
			Want:     "student 1: leave 0 while student 0 dines alone",
		},
		check.Wrong[solution]{
			Name: "WaiterForgotten", // okToLeave of one permit, free from the start: the first waiter does not wait
			Solution: func(n check.NewSemaphore) judge.DiningHall {
				return solutions.NewDiningHall(remade(n, 2, 1, 1))
			},
			Want: "dines alone",
		})
}

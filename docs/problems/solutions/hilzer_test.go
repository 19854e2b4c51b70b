package solutions_test

import (
	"context"
	"testing"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
	"github.com/semacat/sem/docs/problems/solutions"
)

func TestHilzerBarbershop(t *testing.T) {
	type solution = func(check.NewSemaphore, int) judge.HilzerShop
	shop := func(n check.NewSemaphore, holds int) judge.HilzerShop { return solutions.NewHilzerShop(n, holds) }
	judgeAll(t, judge.Problem29,
		official(shop, check.Right[solution]{
			Name:     "BatonShop",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop { return newBatonShop(n, holds) },
		}),
		check.Wrong[solution]{
			Name: "TwentyOneInside",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop {
				return solutions.NewHilzerShop(n, holds+1)
			},
			Want: "inside already: the shop holds 20",
		},
		check.Wrong[solution]{
			Name: "BalksAtNineteen",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop {
				return solutions.NewHilzerShop(n, holds-1)
			},
			Want: "a customer turns away only from a full shop (20 inside)",
		},
		check.Wrong[solution]{
			Name:     "SofaOfFive",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop { return shop(remade(n, 2, 5, 5), holds) },
			Want:     "on the sofa already: it seats 4",
		},
		check.Wrong[solution]{
			Name:     "FourChairs",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop { return shop(remade(n, 3, 4, 4), holds) },
			Want:     "in barber chairs already: there are 3",
		},
		check.Wrong[solution]{
			Name:     "SofaAnyOrder",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop { return shop(unchained(n, 1), holds) },
			Want:     "the sofa is taken in the order customers came in",
		},
		check.Wrong[solution]{
			Name:     "ChairAnyOrder",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop { return shop(unchained(n, 2), holds) },
			Want:     "the sofa's longest sitter goes to a barber first",
		},
		check.Wrong[solution]{
			Name:     "PaysBeforeHaircut",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop { return shop(unchained(n, 0), holds) },
			Want:     "has not yet had a barber begin its haircut",
		},
		check.Wrong[solution]{
			Name: "LeavesWithoutReceipt",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop {
				return noReceipt{solutions.NewHilzerShop(n, holds)}
			},
			Want: "has not yet had a barber take its payment",
		},
		check.Wrong[solution]{
			Name:     "TwoRegisters",
			Solution: func(n check.NewSemaphore, holds int) judge.HilzerShop { return shop(remade(n, 6, 2, 2), holds) },
			Want:     "more than 1 at once",
		})
}

// noReceipt is the book's shop with customers who leave as soon as they
// have paid, without waiting for a barber to accept the payment.
type noReceipt struct{ *solutions.HilzerShop }

func (s noReceipt) Customer(ctx context.Context, id int, v judge.Visit) (bool, error) {
	pay, leave := v.Pay, v.LeaveShop
	v.Pay = func() { pay(); leave() }
	v.LeaveShop = func() {}
	return s.HilzerShop.Customer(ctx, id, v)
}

// hilzerShared is how many semaphores the book's HilzerShop makes for the
// shop; each customer then makes three signals: its own (haircut done,
// then receipt), the one it gives the next to sit on the sofa, and the one
// it gives the next to sit in a barber chair.
const hilzerShared = 6

// unchained wraps a constructor so that the customers' signal number k
// (0, 1 or 2 of the three each makes) starts given: with k = 1 nobody
// waits for the one ahead in the standing line, with 2 nobody waits for
// the one ahead on the sofa, and with 0 a customer does not wait for its
// haircut to end before it pays.
func unchained(newSemaphore check.NewSemaphore, k int) check.NewSemaphore {
	made := 0
	return func(size, available int64) sem.Semaphore {
		made++
		if made > hilzerShared && (made-hilzerShared-1)%3 == k {
			size, available = size+1, size // given once, with room for its own signal
		}
		return newSemaphore(size, available)
	}
}

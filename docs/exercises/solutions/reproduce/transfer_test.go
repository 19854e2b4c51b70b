package reproduce_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/semacat/sem/chansem"
)

// account is a balance guarded by a semaphore of size 1.
type account struct {
	id      int
	lock    *chansem.Semaphore
	balance int
}

func newAccount(id, balance int) *account {
	return &account{id: id, lock: chansem.New(1), balance: balance}
}

// lockBoth takes the two accounts' locks in the order given, and returns a
// function that releases them, or ctx's error with nothing held.
func lockBoth(ctx context.Context, first, second *account) (unlock func(), err error) {
	if err := first.lock.Acquire(ctx, 1); err != nil {
		return nil, err
	}
	time.Sleep(time.Millisecond) // the other transfer takes its first lock meanwhile
	if err := second.lock.Acquire(ctx, 1); err != nil {
		first.lock.Release(1)
		return nil, err
	}
	return func() { second.lock.Release(1); first.lock.Release(1) }, nil
}

// transferNaive locks the source, then the destination: two opposite
// transfers each hold one lock and wait for the other's.
func transferNaive(ctx context.Context, from, to *account, amount int) error {
	return transferLocking(ctx, from, to, from, to, amount)
}

// transferOrdered locks the account with the lower id first, whichever way
// the money goes: no cycle of waiting can close.
func transferOrdered(ctx context.Context, from, to *account, amount int) error {
	if to.id < from.id {
		return transferLocking(ctx, to, from, from, to, amount)
	}
	return transferLocking(ctx, from, to, from, to, amount)
}

// transferLocking moves amount from one account to the other while holding
// both locks, taken in the order first, second.
func transferLocking(ctx context.Context, first, second, from, to *account, amount int) error {
	unlock, err := lockBoth(ctx, first, second)
	if err != nil {
		return err
	}
	defer unlock()
	from.balance -= amount
	to.balance += amount
	return nil
}

// transferBothWays runs a transfer from a to b and one from b to a at the
// same time, with one deadline, and returns their errors and how long they
// took on the bubble's clock.
func transferBothWays(transfer func(context.Context, *account, *account, int) error, a, b *account) (errs [2]error, took time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = transfer(ctx, a, b, 30) })
	wg.Go(func() { errs[1] = transfer(ctx, b, a, 10) })
	wg.Wait()
	return errs, time.Since(start)
}

func TestOppositeTransfersDeadlock(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		a, b := newAccount(1, 100), newAccount(2, 100)
		errs, took := transferBothWays(transferNaive, a, b)
		assert.ErrorIs(t, errs[0], context.DeadlineExceeded)
		assert.ErrorIs(t, errs[1], context.DeadlineExceeded)
		assert.Equal(t, time.Second, took, "only the deadline ends the deadlock")
		assert.Equal(t, []int{100, 100}, []int{a.balance, b.balance}, "no money moved")
	})
}

func TestOrderedTransfersComplete(t *testing.T) {
	requireAsked(t)
	synctest.Test(t, func(t *testing.T) {
		a, b := newAccount(1, 100), newAccount(2, 100)
		errs, took := transferBothWays(transferOrdered, a, b)
		assert.NoError(t, errs[0])
		assert.NoError(t, errs[1])
		assert.Less(t, took, time.Second)
		assert.Equal(t, []int{80, 120}, []int{a.balance, b.balance})
	})
}

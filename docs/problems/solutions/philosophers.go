package solutions

import (
	"context"

	"github.com/semacat/sem"
)

// Table seats philosophers around a table with one fork between each two
// neighbours; a philosopher eats with the forks on both sides.
//
// Deadlock needs a cycle of philosophers each holding one fork and
// waiting for the next. Everyone takes the fork on the left first except
// the last philosopher, who takes the right one first, so the cycle can
// never close: of the last philosopher and the first, who both want fork
// 0 first, one waits holding nothing.
type Table struct {
	forks []sem.Semaphore // forks[i] is between philosopher i-1 and i: i's left fork
}

// NewTable returns a table for n philosophers, n at least 2.
func NewTable(newSemaphore NewSemaphore, n int) *Table {
	t := &Table{forks: make([]sem.Semaphore, n)}
	for i := range t.forks {
		t.forks[i] = newSemaphore(1, 1)
	}
	return t
}

// Eat waits for both forks of philosopher i, calls eat, and puts the forks
// down.
func (t *Table) Eat(ctx context.Context, i int, eat func()) error {
	first, second := t.forks[i], t.forks[(i+1)%len(t.forks)]
	if i == len(t.forks)-1 {
		first, second = second, first
	}
	if err := first.Acquire(ctx, 1); err != nil {
		return err
	}
	defer first.Release(1)
	if err := second.Acquire(ctx, 1); err != nil {
		return err
	}
	defer second.Release(1)
	eat()
	return nil
}

package workspace

import (
	"context"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

// Problem 9: a buffer of capacity items between producers and consumers.
type Buffer struct{}

// NewBuffer returns an empty buffer of capacity items.
func NewBuffer(newSemaphore check.NewSemaphore, capacity int) *Buffer { return &Buffer{} }

// Put waits while the buffer is full, then stores item.
func (b *Buffer) Put(ctx context.Context, item int) error { return todo(9) }

// Take waits while the buffer is empty, then returns the oldest item.
func (b *Buffer) Take(ctx context.Context) (int, error) { return 0, todo(9) }

// Problems 10 and 11: readers share the room, a writer has it alone; in
// problem 11 a waiting writer shuts the door on readers.
type ReadersWriters struct{ problem int }

// NewReadersWriters returns an empty room (problem 10).
func NewReadersWriters(newSemaphore check.NewSemaphore) *ReadersWriters {
	return &ReadersWriters{problem: 10}
}

// NewWriterPriority returns an empty room where writers go first
// (problem 11). Give it a type of its own if you like.
func NewWriterPriority(newSemaphore check.NewSemaphore) *ReadersWriters {
	return &ReadersWriters{problem: 11}
}

// ReadLock enters as a reader.
func (rw *ReadersWriters) ReadLock(ctx context.Context) error { return todo(rw.problem) }

// ReadUnlock leaves as a reader.
func (rw *ReadersWriters) ReadUnlock(ctx context.Context) error { return todo(rw.problem) }

// WriteLock enters as the writer.
func (rw *ReadersWriters) WriteLock(ctx context.Context) error { return todo(rw.problem) }

// WriteUnlock leaves as the writer.
func (rw *ReadersWriters) WriteUnlock(ctx context.Context) error { return todo(rw.problem) }

// Problem 12: a mutex under which nobody starves, on weak semaphores.
type NoStarveMutex struct{}

// NewNoStarveMutex returns an unlocked mutex.
func NewNoStarveMutex(newSemaphore check.NewSemaphore) *NoStarveMutex { return &NoStarveMutex{} }

// Do runs critical alone.
func (m *NoStarveMutex) Do(ctx context.Context, critical func()) error { return todo(12) }

// Problem 13: n philosophers, n forks.
type Table struct{}

// NewTable returns a table for n philosophers.
func NewTable(newSemaphore check.NewSemaphore, n int) *Table { return &Table{} }

// Eat takes philosopher i's forks, calls eat, and puts them down.
func (t *Table) Eat(ctx context.Context, i int, eat func()) error { return todo(13) }

// Problem 14: atoms bond into water, a molecule at a time.
type Water struct{}

// NewWater returns an empty vessel.
func NewWater(newSemaphore check.NewSemaphore) *Water { return &Water{} }

// Oxygen bonds once two hydrogens are there.
func (w *Water) Oxygen(ctx context.Context, bond func()) error { return todo(14) }

// Hydrogen bonds once another hydrogen and an oxygen are there.
func (w *Water) Hydrogen(ctx context.Context, bond func()) error { return todo(14) }

// Problem 15: one barber, chairs waiting chairs.
type Barbershop struct{}

// NewBarbershop returns an empty shop.
func NewBarbershop(newSemaphore check.NewSemaphore, chairs int) *Barbershop {
	return &Barbershop{}
}

// Customer gets a haircut, or reports false at once if the shop is full.
func (s *Barbershop) Customer(ctx context.Context, getHairCut func()) (bool, error) {
	return false, todo(15)
}

// Barber cuts hair until ctx is done.
func (s *Barbershop) Barber(ctx context.Context, cutHair func()) error { return todo(15) }

// Problem 16: savages eat from a pot of size servings that a cook fills.
type Pot struct{}

// NewPot returns an empty pot of size servings.
func NewPot(newSemaphore check.NewSemaphore, size int) *Pot { return &Pot{} }

// Savage takes one serving, waking the cook if the pot is empty.
func (p *Pot) Savage(ctx context.Context, getServing func()) error { return todo(16) }

// Cook fills the pot each time it is woken, until ctx is done.
func (p *Pot) Cook(ctx context.Context, fill func(servings int)) error { return todo(16) }

// Problem 17: the smokers, and pushers if you want them.
type Smokers struct{}

// NewSmokers returns the smokers at table.
func NewSmokers(newSemaphore check.NewSemaphore, table judge.SmokersTable) *Smokers {
	return &Smokers{}
}

// Pusher helps with ingredient until ctx is done (return nil at once if
// you need no pushers).
func (s *Smokers) Pusher(ctx context.Context, ingredient int) error { return todo(17) }

// Smoker has ingredient has, and makes a cigarette whenever the other two
// are out, until ctx is done.
func (s *Smokers) Smoker(ctx context.Context, has int, makeCigarette func()) error {
	return todo(17)
}

// Problem 18: hackers and serfs cross in safe boatloads of four.
type River struct{}

// NewRiver returns an empty bank.
func NewRiver(newSemaphore check.NewSemaphore) *River { return &River{} }

// Hacker boards a safe boat; one of each boat's four rows it.
func (r *River) Hacker(ctx context.Context, board, rowBoat func()) error { return todo(18) }

// Serf boards a safe boat; one of each boat's four rows it.
func (r *River) Serf(ctx context.Context, board, rowBoat func()) error { return todo(18) }

// Problem 19: Santa, nine reindeer (judge.Herd) and elves in threes
// (judge.ElfGroup).
type Workshop struct{}

// NewWorkshop returns a workshop where Santa sleeps.
func NewWorkshop(newSemaphore check.NewSemaphore) *Workshop { return &Workshop{} }

// Santa sleeps until woken, then prepares the sleigh or helps elves,
// until ctx is done.
func (w *Workshop) Santa(ctx context.Context, prepareSleigh, helpElves func()) error {
	return todo(19)
}

// Reindeer comes back and waits to be hitched.
func (w *Workshop) Reindeer(ctx context.Context, getHitched func()) error { return todo(19) }

// Elf waits for help, in a group of three.
func (w *Workshop) Elf(ctx context.Context, getHelp func()) error { return todo(19) }

package sem_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/semacat/sem"
	"github.com/semacat/sem/chansem"
)

// A request for more permits than the semaphore has can never succeed, so
// Acquire says so at once instead of waiting. Tell it apart from a timeout
// with errors.Is.
func ExampleErrExceedsSize() {
	s := chansem.New(4)
	err := s.Acquire(context.Background(), 5)
	fmt.Println(errors.Is(err, sem.ErrExceedsSize))
	fmt.Println(err)
	fmt.Println("TryAcquire(5):", s.TryAcquire(5))
	// Output:
	// true
	// chansem: Acquire(5) on size 4: sem: request exceeds semaphore size
	// TryAcquire(5): false
}

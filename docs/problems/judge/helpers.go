package judge

import (
	"context"
	"fmt"
	"strings"
)

// name numbers the goroutines of one kind.
func name(kind string, i int) string { return fmt.Sprintf("%s %d", kind, i) }

// countKind counts the names that begin with kind.
func countKind(names []string, kind string) int {
	n := 0
	for _, name := range names {
		if strings.HasPrefix(name, kind) {
			n++
		}
	}
	return n
}

// each runs f for i in [0, n), stopping at the first error.
func each(n int, f func(i int) error) error {
	for i := range n {
		if err := f(i); err != nil {
			return err
		}
	}
	return nil
}

// waitFn is a method that waits.
type waitFn = func(ctx context.Context) error

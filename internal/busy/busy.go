// Package busy burns processor time without blocking: the pause between
// spinsem's spin rounds, and the work that tests and benchmarks do while
// they hold a permit.
package busy

import "sync/atomic"

var sink atomic.Int64

// Work runs n steps of a loop that the compiler cannot remove, without
// blocking or yielding the processor.
func Work(n int) {
	x := 0
	for i := range n {
		x += i * i
	}
	if x == -1 {
		sink.Store(int64(x))
	}
}

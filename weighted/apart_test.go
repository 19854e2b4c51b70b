package weighted

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestStateApart checks the layout BenchmarkHandOff's convoy depends on:
// wherever the semaphore is placed, no cache line holds both a byte of
// the fields a hand-off writes (mu and q) and a byte of the state word or
// of the fields after it, which every call reads.
func TestStateApart(t *testing.T) {
	var s Semaphore
	hotEnd := unsafe.Offsetof(s.q) + unsafe.Sizeof(s.q)
	gap := unsafe.Offsetof(s.state) - hotEnd
	// The last hot byte and the state word's first byte share a line
	// in some placement unless cacheLine-1 bytes lie between them.
	require.GreaterOrEqual(t, int(gap), cacheLine-1,
		"state is %d bytes after q, so a placement puts them on one cache line", gap)
	require.Less(t, unsafe.Offsetof(s.q), unsafe.Offsetof(s.state), "q must come before the pad")
	require.Less(t, unsafe.Offsetof(s.state), unsafe.Offsetof(s.size), "size must follow state, after the pad")
}

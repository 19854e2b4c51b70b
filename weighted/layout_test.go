package weighted

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestLayout checks the three cache lines Semaphore's comment describes:
// a size the allocator aligns to a line, the fields a holder of the mutex
// writes on the first line, the pool of free nodes on the second, and the
// fields every call reads on the third.
func TestLayout(t *testing.T) {
	var s Semaphore
	line := func(off uintptr) uintptr { return off / cacheLine }
	q := unsafe.Offsetof(s.q)
	require.Zero(t, unsafe.Sizeof(s)%cacheLine, "size %d is not a multiple of the line", unsafe.Sizeof(s))
	for name, off := range map[string]uintptr{
		"mu": unsafe.Offsetof(s.mu), "count": unsafe.Offsetof(s.count),
		"q.head": q + unsafe.Offsetof(s.q.head), "q.tail": q + unsafe.Offsetof(s.q.tail),
		"q.len":        q + unsafe.Offsetof(s.q.len),
		"q.wanted end": q + unsafe.Offsetof(s.q.wanted) + unsafe.Sizeof(s.q.wanted) - 1,
	} {
		require.Zero(t, line(off), "%s at %d is not on the first line", name, off)
	}
	nodes := q + unsafe.Offsetof(s.q.nodes)
	require.Equal(t, uintptr(1), line(nodes), "q.nodes at %d", nodes)
	require.Equal(t, uintptr(1), line(nodes+unsafe.Sizeof(s.q.nodes)-1), "q.nodes ends past its line")
	require.Equal(t, uintptr(2), line(unsafe.Offsetof(s.state)), "state at %d", unsafe.Offsetof(s.state))
	require.Equal(t, uintptr(2), line(unsafe.Offsetof(s.test)), "test at %d", unsafe.Offsetof(s.test))
}

// TestAlignedWhenAllocated checks that New's semaphores start on a line,
// as the size class of a multiple of the line gives.
func TestAlignedWhenAllocated(t *testing.T) {
	for range 64 {
		s := New(1)
		require.Zero(t, uintptr(unsafe.Pointer(s))%cacheLine)
	}
}

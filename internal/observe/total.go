package observe

import (
	"math"
	"math/bits"
)

// Total is the number of permits the waiting Acquires ask for, as
// sem.Observer's Waiting reports it. Each request is at most the size, which
// is at most math.MaxInt64, but a few requests together can ask for more:
// Total counts on in 128 bits, so that adding and taking away stay exact,
// and Permits saturates. The zero value is a total of zero.
type Total struct{ hi, lo uint64 }

// Add counts a waiting request for n permits, n >= 0.
func (t *Total) Add(n int64) {
	var carry uint64
	t.lo, carry = bits.Add64(t.lo, uint64(n), 0)
	t.hi += carry
}

// Sub takes away a request for n permits counted by Add.
func (t *Total) Sub(n int64) {
	var borrow uint64
	t.lo, borrow = bits.Sub64(t.lo, uint64(n), 0)
	t.hi -= borrow
}

// Permits returns the total, or math.MaxInt64 if it is larger.
func (t *Total) Permits() int64 {
	if t.hi != 0 || t.lo > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(t.lo)
}

package observe

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTotalSaturatesAndStaysExact(t *testing.T) {
	var total Total
	half := int64(math.MaxInt64/2 + 1)
	total.Add(half)
	assert.Equal(t, half, total.Permits())
	total.Add(half)
	total.Add(math.MaxInt64)
	assert.Equal(t, int64(math.MaxInt64), total.Permits(), "past math.MaxInt64 the total saturates")
	total.Sub(math.MaxInt64)
	total.Sub(half)
	assert.Equal(t, half, total.Permits(), "taking away what was added is exact again")
	total.Sub(half)
	assert.Zero(t, total.Permits())
}

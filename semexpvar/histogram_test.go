package semexpvar

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The count of waits is the +Inf bucket of the same read, never a counter
// of its own that waits ending during the read could set apart: a bridge
// that exports both from one scrape must get a valid histogram. The
// buckets are set without a wait ending, as a read between a bucket's
// increment and a count's would see them.
func TestWaitsIsTheInfBucketOfTheSameRead(t *testing.T) {
	var h histogram
	h.buckets[0].Add(3)
	h.buckets[len(bounds)].Add(2)
	m := map[string]any{}
	h.export(m)
	assert.EqualValues(t, 5, m["waits"])
	assert.EqualValues(t, 5, m["wait_seconds_bucket"].(map[string]uint64)["+Inf"])
}

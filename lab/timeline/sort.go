package timeline

import (
	"cmp"
	"slices"
)

// sort puts the line's spans and marks in time order, keeping the order of
// recording among equal times.
func (line *LaneLine) sort() {
	slices.SortStableFunc(line.Spans, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	slices.SortStableFunc(line.Marks, func(a, b Mark) int { return cmp.Compare(a.At, b.At) })
}

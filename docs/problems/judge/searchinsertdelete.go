package judge

import (
	"context"
	"errors"

	"github.com/semacat/sem/docs/problems/check"
)

// SearchInsertDelete is what problem 20 asks for: searchers may work with
// each other and with one inserter; inserters one at a time; a deleter
// alone.
type SearchInsertDelete interface {
	Search(ctx context.Context, search func()) error
	Insert(ctx context.Context, insert func()) error
	Delete(ctx context.Context, delete func()) error
}

// Problem20 is search-insert-delete. The scenario: an inserter works from
// 0 while a second inserter and two searchers arrive; a deleter arrives at
// 60 while a searcher and an inserter are busy, and another searcher and
// inserter come while it waits; then eight visits at seeded times.
var Problem20 = check.Problem[func(check.NewSemaphore) SearchInsertDelete]{
	Seeds: seeds,
	Scenario: func(r *check.Run, newList func(check.NewSemaphore) SearchInsertDelete) {
		l := newList(r.NewSemaphore)
		kinds := []struct {
			name, what string
			enter      func(context.Context, func()) error
		}{{"searcher", "search", l.Search}, {"inserter", "insert", l.Insert}, {"deleter", "delete", l.Delete}}
		visits := []struct{ kind, at, stay int }{
			{1, 0, 45}, {1, 5, 10}, {0, 8, 30}, {0, 12, 30},
			{0, 55, 20}, {1, 56, 20}, {2, 60, 10}, {0, 65, 5}, {1, 66, 5},
		}
		for range 8 {
			visits = append(visits, struct{ kind, at, stay int }{r.Rand(3), 150 + r.Rand(60), 1 + r.Rand(10)})
		}
		for i, v := range visits {
			k := kinds[v.kind]
			call{name(k.name, i), k.what, v.at, v.stay, k.enter}.visit(r)
		}
	},
	Rules: func(log []check.Event) error {
		return errors.Join(
			check.AtMost(log, "insert", 1), check.AtMost(log, "delete", 1),
			apart(log, "delete", "search"), apart(log, "delete", "insert"),
			together(log, "search", "search", "searchers never searched together"),
			together(log, "search", "insert", "a searcher never searched while an inserter inserted"))
	},
}

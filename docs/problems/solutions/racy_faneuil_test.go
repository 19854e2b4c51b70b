package solutions_test

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

// racyHall is Faneuil Hall (problem 31) right in every step but one: an
// immigrant counts itself in (h.entered++) guarded only by noJudge, which
// the Judge does not hold while it reads the count. Every seeded run
// passes; only the race detector sees it, in a free run.
type racyHall struct {
	newSem                check.NewSemaphore
	n                     int
	noJudge, m, allSigned sem.Semaphore
	confirmed             sem.Semaphore // of the current ceremony
	entered, checked      int
	judgeIn               bool
}

func newRacyHall(n check.NewSemaphore, immigrants int) *racyHall {
	return &racyHall{newSem: n, n: immigrants, noJudge: n(1, 1), m: n(1, 1), allSigned: n(1, 0),
		confirmed: n(int64(immigrants), 0)}
}

func (h *racyHall) Immigrant(ctx context.Context, c judge.Ceremony) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	c.Enter()
	h.entered++ // guarded by noJudge only
	h.noJudge.Release(1)
	if err := h.m.Acquire(ctx, 1); err != nil {
		return err
	}
	c.CheckIn()
	h.checked++
	mine := h.confirmed
	if h.entered == h.checked && h.judgeIn {
		h.allSigned.Release(1) // hand the mutex to the judge
	} else {
		h.m.Release(1)
	}
	c.SitDown()
	if err := mine.Acquire(ctx, 1); err != nil {
		return err
	}
	c.Swear()
	c.GetCertificate()
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	c.Leave()
	h.noJudge.Release(1)
	return nil
}

func (h *racyHall) Spectator(ctx context.Context, enter, spectate, leave func()) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	enter()
	h.noJudge.Release(1)
	spectate()
	leave()
	return nil
}

func (h *racyHall) Judge(ctx context.Context, enter, confirm, leave func()) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := h.m.Acquire(ctx, 1); err != nil {
		return err
	}
	enter()
	h.judgeIn = true
	if h.entered > h.checked {
		h.m.Release(1)
		if err := h.allSigned.Acquire(ctx, 1); err != nil { // woken with the mutex
			return err
		}
	}
	confirm()
	if h.checked > 0 {
		h.confirmed.Release(int64(h.checked))
		h.confirmed = h.newSem(int64(h.n), 0)
	}
	h.entered, h.checked = 0, 0
	leave()
	h.judgeIn = false
	h.m.Release(1)
	h.noJudge.Release(1)
	return nil
}

package solutions

import (
	"context"

	"github.com/semacat/sem"
	"github.com/semacat/sem/docs/problems/judge"
)

// Ceremony is what an immigrant does in Faneuil Hall, in order.
type Ceremony = judge.Ceremony

// Hall is Faneuil Hall: immigrants come in, check in, sit down, and once
// a judge has confirmed them swear, get their certificates and leave;
// spectators come and go; nobody comes in while the judge is in, and
// immigrants do not leave then.
//
// noJudge is a turnstile that everyone coming in passes, and immigrants
// leaving too; the judge holds it while in. A mutex guards the counts of
// immigrants come in and checked in since the last confirmation. A judge
// who finds some not yet checked in waits on allSignedIn, which the last
// of them signals, handing the judge the mutex. The judge confirms those
// checked in, lets them go on with one Release of as many permits, and
// waits until each has taken its permit before leaving: a slow immigrant
// of this confirmation must not leave its permit to one of the next.
type Hall struct {
	noJudge     sem.Semaphore // one permit: held by the judge while in
	mutex       sem.Semaphore // one permit: guards the counts below
	entered     int           // immigrants in, not yet confirmed
	checked     int           // of them, checked in
	judgeIn     bool
	allSignedIn sem.Semaphore // comes with the mutex
	confirmed   sem.Semaphore // one permit per immigrant confirmed
	sworn       sem.Semaphore // one permit per confirmed immigrant gone on
}

// NewHall returns an empty hall for as many as immigrants immigrants at
// once.
func NewHall(newSemaphore NewSemaphore, immigrants int) *Hall {
	n := int64(immigrants)
	return &Hall{
		noJudge:     newSemaphore(1, 1),
		mutex:       newSemaphore(1, 1),
		allSignedIn: newSemaphore(1, 0),
		confirmed:   newSemaphore(n, 0),
		sworn:       newSemaphore(n, 0),
	}
}

// Immigrant comes in, checks in, sits down, and once confirmed swears,
// gets its certificate and leaves.
func (h *Hall) Immigrant(ctx context.Context, c Ceremony) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	c.Enter()
	if err := h.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	h.entered++
	h.mutex.Release(1)
	h.noJudge.Release(1)

	if err := h.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	c.CheckIn()
	h.checked++
	if h.judgeIn && h.checked == h.entered {
		h.allSignedIn.Release(1) // the mutex goes with it
	} else {
		h.mutex.Release(1)
	}
	c.SitDown()
	if err := h.confirmed.Acquire(ctx, 1); err != nil {
		return err
	}
	h.sworn.Release(1)
	c.Swear()
	c.GetCertificate()
	return h.turnstile(ctx, c.Leave)
}

// Spectator comes in when no judge is in, watches, and leaves.
func (h *Hall) Spectator(ctx context.Context, enter, spectate, leave func()) error {
	if err := h.turnstile(ctx, enter); err != nil {
		return err
	}
	spectate()
	leave()
	return nil
}

// turnstile passes noJudge, calling step on the way.
func (h *Hall) turnstile(ctx context.Context, step func()) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	step()
	h.noJudge.Release(1)
	return nil
}

// Judge comes in, waits until every immigrant in has checked in, confirms
// them, and leaves once they have gone on.
func (h *Hall) Judge(ctx context.Context, enter, confirm, leave func()) error {
	if err := h.noJudge.Acquire(ctx, 1); err != nil {
		return err
	}
	if err := h.mutex.Acquire(ctx, 1); err != nil {
		return err
	}
	enter()
	h.judgeIn = true
	if h.checked < h.entered {
		h.mutex.Release(1)
		if err := h.allSignedIn.Acquire(ctx, 1); err != nil { // wakes holding the mutex
			return err
		}
	}
	confirm()
	n := int64(h.checked)
	h.confirmed.Release(n)
	h.entered, h.checked = 0, 0
	h.judgeIn = false
	h.mutex.Release(1)
	if err := h.sworn.Acquire(ctx, n); err != nil {
		return err
	}
	leave()
	h.noJudge.Release(1)
	return nil
}

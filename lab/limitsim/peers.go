package limitsim

import (
	"context"
	"math/rand/v2"

	"github.com/failsafe-go/failsafe-go/adaptivelimiter"

	"github.com/semacat/sem/adaptive"
	"github.com/semacat/sem/weighted"
)

// limiter admits through an adaptive.Limiter: Start if it waits, TryStart
// if not.
type limiter struct {
	l     *adaptive.Limiter
	waits bool
}

// NewLimiter returns an Admitter over a Limiter that starts at initial and
// moves by alg.
func NewLimiter(alg adaptive.Algorithm, initial int64, waits bool) Admitter {
	bounds := adaptive.WithBounds(1, 1000)
	if _, ok := alg.(fixed); ok { // nor halved by the no-load latency's probes
		bounds = adaptive.WithBounds(initial, initial)
	}
	var src rand.Source = rand.NewPCG(3, 4)
	if waits {
		src = everyOne{}
	}
	l := adaptive.New(weighted.New(1), initial, alg, bounds, adaptive.WithRand(src))
	return limiter{l, waits}
}

// everyOne samples every request. The waiting mode uses it: the goroutines
// that a grow of the limit wakes at once draw in no fixed order, so a seeded
// source would sample different requests from run to run.
type everyOne struct{}

func (everyOne) Uint64() uint64 { return 0 }

func (a limiter) Limit() int64 { return a.l.Limit() }

func (a limiter) Admit(ctx context.Context) (func(bool), error) {
	if a.waits {
		tok, err := a.l.Start(ctx, 1)
		return tok.Done, err
	}
	tok, ok := a.l.TryStart(1)
	if !ok {
		return nil, adaptive.ErrLimitExceeded
	}
	return tok.Done, nil
}

// peer admits through failsafe-go's adaptivelimiter: AcquirePermit if it
// waits, TryAcquirePermit if not. A success is recorded; a request its
// client gave up is dropped, as failsafe-go's documentation asks for a
// timeout.
type peer struct {
	l     adaptivelimiter.AdaptiveLimiter[any]
	waits bool
}

// NewPeer returns failsafe-go's adaptivelimiter with its defaults, and with
// queueing (rejection factors 2 and 3, its documentation's example) if
// waits is set.
func NewPeer(waits bool) Admitter {
	if waits {
		return peer{adaptivelimiter.NewBuilder[any]().WithQueueing(2, 3).Build(), true}
	}
	return peer{adaptivelimiter.NewWithDefaults[any](), false}
}

func (p peer) Limit() int64 { return int64(p.l.Limit()) }

func (p peer) Admit(ctx context.Context) (func(bool), error) {
	permit, err := p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return func(ok bool) {
		if ok {
			permit.Record()
		} else {
			permit.Drop()
		}
	}, nil
}

func (p peer) acquire(ctx context.Context) (adaptivelimiter.Permit, error) {
	if p.waits {
		return p.l.AcquirePermit(ctx)
	}
	if permit, ok := p.l.TryAcquirePermit(); ok {
		return permit, nil
	}
	return nil, adaptive.ErrLimitExceeded
}

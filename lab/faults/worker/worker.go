// Package worker is the client side of the fault-injection runs: a loop
// that acquires a semaphore through one strategy handle, does fenced writes
// while it holds, and releases, logging every step to its history file.
//
// The loop is written against [Acquirer] and [Grant], not against a
// strategy, so that one loop drives every strategy; etcd.go and redis.go
// adapt the strategies to it. Deliberately broken variants (ignoring the
// fence, ignoring Done) exist so that a run can show the checker catching
// them.
package worker

import (
	"context"
	"net/http"
	"time"

	"github.com/semacat/sem/lab/faults/fence"
	"github.com/semacat/sem/lab/faults/history"
)

// Grant is one acquisition, as the worker needs it.
type Grant interface {
	// Token is the grant's fencing token.
	Token() int64
	// Done is closed once the holder can no longer be sure it holds the
	// grant; it is nil if the strategy cannot tell.
	Done() <-chan struct{}
	// Err is nil while the holder may trust the grant, and says why not
	// once it cannot.
	Err() error
	// Release gives the grant back.
	Release(ctx context.Context) error
}

// Acquirer is a strategy handle.
type Acquirer interface {
	Acquire(ctx context.Context, n int64) (Grant, error)
	Close() error
}

// Config is what one worker does.
type Config struct {
	Name           string        // the worker's name in the histories
	Weight         int64         // permits per acquire
	Hold           time.Duration // how long each grant is held
	Duration       time.Duration // no acquire starts after this
	AcquireTimeout time.Duration // bound of each acquire
	ReleaseTimeout time.Duration // bound of each release
	Store          string        // the fenced store's URL
	Key            string        // the store key the worker writes
	IgnoreFence    bool          // broken: write unfenced
	IgnoreDone     bool          // broken: write without checking the grant first
	ActDelay       time.Duration // between checking the grant and the write it guards
}

// retryPause spaces the acquires of a worker whose acquire failed, so that
// a dead server is not hammered.
const retryPause = 50 * time.Millisecond

// Run loops until cfg.Duration has passed or ctx is done: acquire, write,
// hold, write again, release. It returns the first error of the history
// file; the strategy's errors are logged, never returned.
func Run(ctx context.Context, a Acquirer, cfg Config, log *history.Writer) error {
	w := &loop{cfg: cfg, a: a, log: log, http: &http.Client{Transport: &http.Transport{}}}
	defer w.http.CloseIdleConnections()
	end := time.Now().Add(cfg.Duration)
	for time.Now().Before(end) && ctx.Err() == nil {
		if err := w.once(ctx); err != nil {
			return err
		}
	}
	return log.Log(history.Event{Kind: history.Exit})
}

type loop struct {
	cfg  Config
	a    Acquirer
	log  *history.Writer
	http *http.Client
}

// once runs one acquire-hold-release cycle.
func (w *loop) once(ctx context.Context) error {
	if err := w.log.Log(history.Event{Kind: history.AcquireStart, Weight: w.cfg.Weight}); err != nil {
		return err
	}
	actx, cancel := context.WithTimeout(ctx, w.cfg.AcquireTimeout)
	g, err := w.a.Acquire(actx, w.cfg.Weight)
	cancel()
	if err != nil {
		if lerr := w.log.Log(history.Event{Kind: history.AcquireFailed, Weight: w.cfg.Weight, Err: err.Error()}); lerr != nil {
			return lerr
		}
		pause(ctx, retryPause)
		return nil
	}
	if err := w.log.Log(history.Event{Kind: history.Granted, Weight: w.cfg.Weight, Token: g.Token(), CanSignal: g.Done() != nil}); err != nil {
		return err
	}
	if err := w.hold(ctx, g); err != nil {
		return err
	}
	if err := w.log.Log(history.Event{Kind: history.ReleaseStart, Token: g.Token()}); err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.cfg.ReleaseTimeout)
	err = g.Release(rctx)
	cancel()
	return w.log.Log(history.Event{Kind: history.Released, Token: g.Token(), Err: errString(err)})
}

// hold acts (a checked write), holds for cfg.Hold and acts again, unless
// Done fires first (and the worker heeds it).
func (w *loop) hold(ctx context.Context, g Grant) error {
	if ok, err := w.act(ctx, g); !ok || err != nil {
		return err
	}
	done := g.Done()
	if w.cfg.IgnoreDone {
		done = nil
	}
	t := time.NewTimer(w.cfg.Hold)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return nil
	case <-done:
		return w.log.Log(history.Event{Kind: history.DoneFired, Token: g.Token(), Err: errString(g.Err())})
	}
	_, err := w.act(ctx, g)
	return err
}

// act is what a careful holder does to use its grant: check that the grant
// is still trusted, and only then write, cfg.ActDelay later (the work a
// holder does between its check and its act). It reports false, without
// writing, when the check finds the grant lost. A worker that ignores Done
// writes without checking.
func (w *loop) act(ctx context.Context, g Grant) (bool, error) {
	if !w.cfg.IgnoreDone {
		if err := g.Err(); err != nil {
			return false, w.log.Log(history.Event{Kind: history.DoneFired, Token: g.Token(), Err: err.Error()})
		}
		if err := w.log.Log(history.Event{Kind: history.DoneOpen, Token: g.Token()}); err != nil {
			return false, err
		}
	}
	pause(ctx, w.cfg.ActDelay)
	return true, w.write(ctx, g.Token())
}

// write makes one fenced write to the store and logs its answer.
func (w *loop) write(ctx context.Context, token int64) error {
	ok, err := fence.Write(ctx, w.http, w.cfg.Store, w.cfg.Key, token, w.cfg.Name, w.cfg.IgnoreFence)
	e := history.Event{Kind: history.WriteRejected, Key: w.cfg.Key, Token: token}
	switch {
	case err != nil:
		e = history.Event{Kind: history.Error, Token: token, Err: err.Error()}
	case ok:
		e.Kind = history.WriteAccepted
	}
	return w.log.Log(e)
}

// pause waits for d, or until ctx is done.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

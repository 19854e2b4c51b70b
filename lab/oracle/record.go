package oracle

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/semacat/sem"
)

// NewFunc builds the semaphore under test.
type NewFunc func(size int64) sem.Semaphore

// OpenFunc opens n handles on one new semaphore of the given size, as n
// processes would open a distributed semaphore by its name.
type OpenFunc func(size int64, n int) []sem.Semaphore

// single is the OpenFunc of a local semaphore: its one handle is itself.
func single(newSem NewFunc) OpenFunc {
	return func(size int64, _ int) []sem.Semaphore { return []sem.Semaphore{newSem(size)} }
}

// safetyTimeout is the default Config.Patience. A correct semaphore's
// history takes a small fraction of it.
const safetyTimeout = 5 * time.Second

// recorder runs one history: workers call the semaphore at random, each
// through one of its handles, and log each call with the moments it began
// and returned.
type recorder struct {
	handles []sem.Semaphore
	size    int64
	late    time.Duration // Config.LateCancel
	clock   atomic.Int64  // orders every call and return
	mu      sync.Mutex
	ops     []porcupine.Operation
	cancels []func() // every Acquire's cancel, recorded; guarded by mu
	ids     atomic.Int64
}

// record calls f, logs it as in by client, and returns its result.
func (r *recorder) record(client int, in input, f func() result) result {
	call := r.clock.Add(1)
	out := f()
	ret := r.clock.Add(1)
	r.mu.Lock()
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret})
	r.mu.Unlock()
	return out
}

// guard runs call and turns a panic into the result panicked.
func guard(call func() result) (out result) {
	defer func() {
		if recover() != nil {
			out = panicked
		}
	}()
	return call()
}

// history runs cfg.Workers goroutines of cfg.Ops calls each against a
// fresh semaphore of size, worker w through handle w modulo cfg.Handles,
// then one quiet TryAcquire of every permit. It returns the operations, or
// hung if calls were still running after every context was canceled: those
// goroutines are abandoned.
func history(open OpenFunc, size int64, cfg Config, seed uint64) (_ []porcupine.Operation, hung bool) {
	r := &recorder{handles: open(size, max(cfg.Handles, 1)), size: size, late: cfg.LateCancel}
	workers, patience := cfg.Workers, cmp.Or(cfg.Patience, safetyTimeout)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { r.work(w, cfg.Ops, rand.New(rand.NewPCG(seed, uint64(w))), &wg) })
	}
	if !waitFor(&wg, patience) {
		r.cancelAll(workers)
		if !waitFor(&wg, patience) {
			return nil, true
		}
	}
	quiet := input{kind: try, n: size, quiet: true}
	if r.record(workers, quiet, r.try(0, size)) == ok {
		r.record(workers, input{kind: release, n: size}, r.release(0, size))
	}
	return r.ops, false
}

// waitFor waits for wg up to d, and reports whether it finished.
func waitFor(wg *sync.WaitGroup, d time.Duration) bool {
	finished := make(chan struct{})
	go func() {
		wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		return true
	case <-time.After(d):
		return false
	}
}

// work is one worker: it acquires only while it holds nothing (so that
// workers never wait on each other while holding permits, and every
// Acquire can be served), and gives back what it holds at the end.
func (r *recorder) work(client, ops int, rng *rand.Rand, wg *sync.WaitGroup) {
	h := client % len(r.handles)
	var held int64
	for range ops {
		switch k := rng.IntN(20); {
		case k < 9 && held == 0:
			held += r.acquire(client, h, rng, wg)
		case k < 12:
			n := 1 + rng.Int64N(r.size)
			if r.record(client, input{kind: try, n: n, handle: h}, r.try(h, n)) == ok {
				held += n
			}
		case k < 18 && held > 0:
			n := 1 + rng.Int64N(held)
			r.record(client, input{kind: release, n: n, handle: h}, r.release(h, n))
			held -= n // if it panicked, another caller released them
		case k >= 18 && held == 0:
			// A deliberate over-release: legal only if others hold enough.
			n := 1 + rng.Int64N(r.size)
			r.record(client, input{kind: release, n: n, handle: h, over: true}, r.release(h, n))
		}
		if rng.IntN(2) == 0 {
			runtime.Gosched()
		}
	}
	if held > 0 {
		r.record(client, input{kind: release, n: held, handle: h}, r.release(h, held))
	}
}

// lateCancel is when the context of an Acquire that is neither done before
// the call nor canceled at once is canceled: every Acquire ends, even one
// that waits for permits nobody will give back (a deliberate over-release
// can give back part of what a worker holds, whose own Release of all of
// them then panics and leaves the rest held by nobody).
const lateCancel = 2 * time.Millisecond

// acquire makes one Acquire, with a context that is done before the call,
// canceled by another goroutine after a few yields, or later: after
// lateCancel, or after a random delay up to Config.LateCancel if set.
// It returns the permits acquired.
func (r *recorder) acquire(client, h int, rng *rand.Rand, wg *sync.WaitGroup) int64 {
	id := int(r.ids.Add(1) - 1)
	if id >= maxAcquires {
		return 0
	}
	n := 1 + rng.Int64N(r.size)
	ctx, stop := context.WithCancel(context.Background())
	cancelRecorded := r.cancelFunc(client, id, stop)
	preCanceled := false
	switch rng.IntN(3) {
	case 0:
		cancelRecorded()
		preCanceled = true
	case 1:
		yields := rng.IntN(50)
		wg.Go(func() {
			for range yields {
				runtime.Gosched()
			}
			cancelRecorded()
		})
	default:
		delay := r.lateDelay(rng)
		wg.Go(func() {
			time.Sleep(delay)
			cancelRecorded()
		})
	}
	out := r.record(client, input{kind: acquire, n: n, id: id, handle: h, doneBefore: preCanceled}, func() result {
		return guard(func() result {
			switch err := r.handles[h].Acquire(ctx, n); {
			case err == nil:
				return ok
			case errors.Is(err, context.Canceled):
				return refused
			}
			return wrongErr
		})
	})
	if out == ok {
		return n
	}
	return 0
}

// lateDelay is the delay of a late cancellation: lateCancel, or a random
// delay up to r.late if set. It draws from rng only if r.late is set, so
// that histories without it are what they always were.
func (r *recorder) lateDelay(rng *rand.Rand) time.Duration {
	if r.late == 0 {
		return lateCancel
	}
	return time.Duration(1 + rng.Int64N(int64(r.late)))
}

// cancelFunc returns the recorded cancellation of Acquire id's context,
// which runs once whoever calls it first (the worker, a canceling goroutine,
// or cancelAll), and registers it for cancelAll.
func (r *recorder) cancelFunc(client, id int, stop context.CancelFunc) func() {
	var once sync.Once
	f := func() {
		once.Do(func() {
			r.record(client, input{kind: cancel, id: id}, func() result { stop(); return ok })
		})
	}
	r.mu.Lock()
	r.cancels = append(r.cancels, f)
	r.mu.Unlock()
	return f
}

// cancelAll cancels every Acquire's context, recorded as from client.
func (r *recorder) cancelAll(client int) {
	r.mu.Lock()
	cancels := slices.Clone(r.cancels)
	r.mu.Unlock()
	for _, f := range cancels {
		f()
	}
}

func (r *recorder) try(h int, n int64) func() result {
	return func() result {
		return guard(func() result {
			if r.handles[h].TryAcquire(n) {
				return ok
			}
			return refused
		})
	}
}

func (r *recorder) release(h int, n int64) func() result {
	return func() result {
		return guard(func() result {
			r.handles[h].Release(n)
			return ok
		})
	}
}

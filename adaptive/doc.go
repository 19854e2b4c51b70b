// Package adaptive is a concurrency limit that finds its own size: it wraps
// a resizable semaphore and moves its size from the latencies and failures
// of the requests it admits, as TCP congestion control moves its window.
//
// Guarantees: a [Limiter] is a [sem.Semaphore] that keeps the contract of
// the semaphore it wraps (semtest checks it over weighted, FIFO and no
// barging included) while its size moves; the limit stays within its
// bounds; a request is never revoked, since shrinking only takes effect as
// permits come back; Start, TryStart and a Token's Done or Report allocate
// nothing, and requests that end together never wait for one lock.
//
// Choose it when the right size depends on a backend whose capacity you do
// not know or that changes: a database, a downstream service, a pool of
// workers shared with others. Keep a fixed size when the capacity is known
// and steady. Of the algorithms, [Vegas] holds latency closest to the
// no-load latency and settles fastest; [AIMD] needs only failures or a
// latency threshold and is the easiest to reason about; [Gradient], Netflix's
// Gradient2, needs no no-load latency, so it follows a backend whose latency
// drifts on its own, at the price of a queue of a couple of requests that
// grows slowly with its long-term average. The docs' adaptive page compares
// them on a simulated backend.
//
//	l := adaptive.New(weighted.New(1), 10, &adaptive.Vegas{}, adaptive.WithBounds(2, 200))
//	tok, err := l.Start(ctx, 1) // waits while the limit is reached
//	if err != nil {
//		return err
//	}
//	err = callBackend(ctx)
//	tok.Done(!errors.Is(err, errOverloaded)) // latency measured since Start
//
// Requests admitted with Acquire or TryAcquire count against the limit but
// teach it nothing; use them for work whose latency says nothing about the
// backend.
package adaptive

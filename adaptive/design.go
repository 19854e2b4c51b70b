package adaptive

// This comment is the design of the package, kept apart from the package
// documentation so that godoc leads with the API.
//
// Design
//
// The limit is the size of the wrapped semaphore: the Limiter queues nobody
// itself, so the wrapped semaphore's order (FIFO for weighted), its
// cancellation and its wake-ups are the Limiter's. Moving the limit is a
// Resize, which never revokes a held permit. A Token remembers when its
// permits were granted, so the latency it reports excludes the wait in the
// queue: the queue in front of the limit is the limit's doing, not the
// backend's, and counting it would make the limit chase itself down.
//
// Sampling. Reading the clock costs more than the rest of a request's way
// through the Limiter, so a Token measures the latency of one request in
// N, chosen by a random draw (math/rand/v2's, whose state belongs to the
// thread, or WithRand's): a draw shares nothing with other requests, where
// a counter of starts would be one cache line written by every request on
// every processor. The others cost that draw and nothing more, and a
// caller-measured latency (Report) of an unsampled request is dropped
// unread. Failures are always recorded, since they are rare when all is
// well and matter most when it is not. N is a power of two, set when each
// window closes so that the next, if as busy, holds about twenty samples:
// the window's sampled requests times its N tell how many it saw. Every
// request is measured while requests are few, up to one in 256 when they
// are many. An algorithm reads a window's fastest and mean latency; when
// the backend is slow for all, the fastest of twenty sampled requests is as
// slow as the fastest of all, and requests drawn at random spread over the
// window as evenly as the requests do, so twenty give the mean within a
// few percent unless a tail is heavy. BenchmarkAcquireRelease measures the
// token path against the bare semaphore on one goroutine, and
// BenchmarkAcquireReleaseParallel on every processor at once, where a
// counter shared by every request would cost the most.
//
// Windows. A sample (latency, success, permits in use) is added to a
// window with atomic operations only: a count, a count of failures, a sum
// and a minimum of the successful latencies, and the most permits in use.
// A window closes at the first sampled request that ends once the window
// has lasted twice the lowest latency seen, and at least a millisecond, and
// holds ten samples; the goroutine that sees this takes a mutex with
// TryLock, so that no request ever waits for another's update, swaps the
// counters out and asks the Algorithm for the next limit. The trade-off: a
// sample that lands during the swap may count in two windows or half in
// each, and the window's latencies are a minimum and a mean, not
// percentiles, since a histogram per window would cost a lock or much
// memory per request.
//
// The minimum, not the mean. Each algorithm reads the window's fastest
// successful request as its current latency (Gradient's Mean, and Wide
// spread below, aside). When the backend is
// overloaded every request slows, the fastest too, while a slow tail of
// requests that are slow by nature moves the mean but not the minimum: the
// minimum tells congestion from a tail. Failed requests count as failures
// and never as latencies, since an overloaded backend often fails fast.
// The trade-off is that the window's minimum and the no-load latency, the
// lowest latency ever seen, are different statistics, the fastest of a
// window's ten or twenty samples and the fastest of thousands: they differ
// by a few percent when work varies by ±20%, as on the simulator's
// backend, but by several times when it varies as exponential work does,
// and the fastest of a window of such work varies from window to window
// about as much as its mean. There AIMD and Vegas read a queue that is not
// there and the limit sinks; docs/adaptive/results.md measures it.
//
// Wide spread. So the Limiter tells such work from its probes (noload.go):
// the fastest of a probe's n requests exceeds the lowest seen by about the
// range of the work's fastest requests over n+1, and where that range,
// smoothed over probes, exceeds the least latency, the work varies widely.
// Then windows wait for enough samples that their mean is precise (about
// (CV/precision)², window.go), the probes measure the no-load mean (the
// median of three that found no queue, then the mean of the requests of
// up to sixteen of the same level, pool.go), and the Limiter gives it to the
// algorithm, so that Gradient compares like with like: the window's mean
// with the no-load mean. A probe whose latency halved when the limit did
// was queued: its mean only bounds the no-load mean, and the limit falls
// to the probe's at once. The windows before a probe are smoothed over
// those before the probes before it, so after a probe that lowered the
// limit so, a fall counts only if the windows since that probe show it
// too (noload.go, sinceQueued). Where the spread is narrow none of this runs, so
// the fastest request's signal, which a slow tail does not move, is kept.
// Gradient's rule on the mean settles where the no-load mean's error times
// the limit equals its queue allowance, at most two requests: at a
// capacity of 32 a mean read a tenth low, as probes of such work can, or
// one that missed a latency step too small for the median of probes to
// tell from chance, holds the limit near 20 or lower. But at a limit that
// sank so the backend holds no queue, and the windows' mean there is the
// no-load mean, of far more requests than a probe's. So a limit that sank
// below two thirds of one the backend coped with (of at least 20, grown
// to from the start) calls a probe from half that limit; if it reads
// what the windows at the sunk limit read, their mean becomes the
// no-load mean (noload.go, sunkLeast).
// At a limit of a few requests the balance of Gradient's rule on the mean
// sits near the edge between two sizes (at a capacity of 2, near 3.5), and
// a no-load mean a few percent off moves it a quarter of a request; the
// sizes themselves read queues far apart, so a queue read near the
// allowance holds the size (algorithm.go).
//
// AIMD, after TCP's congestion avoidance (Jacobson, 1988) and Netflix's
// concurrency-limits: add a constant per window while the fastest request
// is within a tolerance of the no-load latency and nothing failed; multiply
// by a backoff factor otherwise. Its limit is a sawtooth: it climbs until
// the queue it builds makes the fastest request slower than the tolerance
// allows, then falls by the backoff. On a backend whose latency grows with
// the queue, the top of the tooth is about the capacity times the
// tolerance and the bottom that times the backoff, so the defaults (1.1
// and 0.9) keep the tooth within a fifth of the capacity; a wider
// tolerance or a deeper backoff widens it. Like every algorithm, it grows
// only when the window's peak use came within a tenth of the limit, or a
// request was refused: a limit the callers do not reach says nothing, and
// one grown unused lets the next burst in whole. Nor does it shrink on the
// latency of such a window, only on its failures: the callers' few
// requests made that latency, and a limit that jitter could lower but
// nothing could raise would sink at low load until the lower priority
// classes, which leave part of it free, were refused on an idle backend.
// A refusal counts as use because a priority class is refused while the
// permits in use stay below the limit: without it, a limit that refuses a
// low class would never grow to serve it.
//
// Small limits. At a capacity of C, the best fixed size keeps about one
// request queued: at C = 2 a limit of 2 leaves the backend idle between a
// completion and the next random arrival, and 4 doubles the wait. A rule
// in fractions of the limit cannot tell 3 from 2 there, so each algorithm
// has a floor in requests, as TCP Vegas counts its queue in packets: AIMD
// counts as congestion a queue of at least 0.6 of a request and backs off
// by at least half of one, Vegas lets a queue of 0.75 of one stand, and
// Gradient adds at least half of one. The fastest request of a window at a
// limit of 3 over C = 2 reads as about 0.6 of a request queued, since it
// runs part of its time beside fewer, and at 4 as more than one, so the
// floors sit between. They are below a tenth of the limit from a limit of
// about 8 on, so larger capacities keep their band.
//
// The queue of Start. The wrapped semaphore's queue is unbounded: a
// request waits until its context ends, so under sustained overload it
// waits out the client's deadline and the backend serves requests their
// clients have given up, as a fixed limit with a queue collapses. Start
// therefore waits only while the wait pays. By Little's law the permits of
// a limit L held for a mean latency r come back at L/r per unit of time, so
// q permits queued ahead, the request's own included (even with nobody
// ahead, it waits for the first permit back), mean a wait of about q·r/L;
// Start refuses at once
// when that exceeds its longest wait (a quarter of the no-load latency by
// default, which keeps a request's wait and its service together within
// the p99 the goals allow) or what the context's deadline leaves after one
// mean latency for the request itself, and bounds the wait itself by the
// same. CoDel (Nichols and Jacobson, 2012) drops at the head when the
// sojourn time measured stays above a target; here the sojourn is predicted
// at the tail, so a request that would be late is shed before it occupies a
// place, and the caller learns at once. The wait's timer is the only
// allocation, and only a request that waits pays it. A request that waited
// longer than it then ran and failed failed because of the wait (its
// client's deadline ran out in the queue), so it is not recorded as a
// drop: otherwise the limit would chase its own queue down.
//
// The no-load latency. The lowest latency ever seen cannot learn that a
// backend became slower for good (a slower disk, a farther replica): AIMD
// and Vegas would read the new latency as a queue and hold the limit at its
// floor. A minimum that merely expires learns it, but under sustained
// overload every window holds some queue, so each new minimum is a little
// higher and the limit creeps up. So the Limiter probes, as BBR's ProbeRTT
// does: every probeEvery times the shortest window (a period in time, since
// at a limit of a few requests a window waits for its samples, and a
// hundred of them could last long enough to keep a limit that a latency
// step pushed to its floor there for many seconds) it halves the limit,
// rounded up, for probeWindows windows, the first to drain the requests in
// flight, the last to measure,
// and takes that window's fastest latency as the no-load latency; between
// probes any faster window lowers it. Half the limit holds no queue while
// the limit is near the capacity; rounded up, since at a limit of 3 over a
// capacity of 2 (an estimate of 2.6, say) half rounded to the nearest is 1,
// which leaves half the capacity idle, and 2 holds no queue either. The
// algorithm sees neither the window that starts the probe nor the probe's.
// The price is the probe's two windows at half the limit each period: a
// few percent of the time at a large limit, more at a capacity of 2, where
// a window waits for its samples. The first probe comes after probeSoon
// windows' time, not probeEvery: it tells whether the work varies widely
// (see Wide spread), and an algorithm that reads the wrong signal until
// then sinks the limit in that time.
//
// Vegas, after TCP Vegas (Brakmo and Peterson, 1995): the no-load latency
// is the Limiter's; with L the limit and r the window's
// fastest latency, L × (1 − noLoad/r) estimates how many requests wait
// inside the backend (Little's law: of L requests in r, L × noLoad/r are
// being served). Below alpha the limit grows by alpha; above beta the
// excess queue comes off at once; in between it holds. The bounds are
// fractions of the limit, so the latency it keeps is the same fraction
// above no-load at any scale; beta is at least 0.75 of a request (see
// Small limits), so that at a capacity of 2 the one request queued that
// the best fixed size keeps, and the jitter of a window's fastest request,
// do not read as a queue to take off.
//
// Gradient, after Netflix's Gradient2: a long-term exponential average of
// the window's latency (600 windows, the first ten averaged plainly) stands
// for the latency of a backend that copes. The ratio of the average to the
// window's latency, clamped to [0.5, 1], scales the limit and a fixed queue
// allowance is added; the result is smoothed by a fifth. When the backend
// recovers after a long overload, an average more than twice the window's
// latency loses a tenth per window, so a slow past does not hide a new
// queue. Failures do not move it: Gradient2 reads latencies only. Two of
// its settings differ from Gradient2's defaults, for reasons its rule
// gives. The limit settles where the shrinking balances the allowance,
// limit × (1 − average/latency) = allowance: on a backend whose latency
// grows with the queue, the capacity plus the allowance, so the allowance
// is the queue kept in the backend, and Gradient2's four requests are a
// fifth of a capacity of twenty; two keep the queue small and still climb
// steadily. And Gradient2's window reads the mean latency by default, or a
// chosen percentile; a slow tail moves the mean from window to window, the
// gradient dips at random and the limit stays low, so Gradient reads the
// window's fastest request, the lowest percentile, which a tail does not
// move (Mean restores the mean). Under steady overload the average follows
// the latency up at the pace of its span, so the limit creeps up slowly; a
// span of many windows is what keeps that creep small, but does not stop
// it: over a long overload the limit climbs far above the capacity. So the
// average is held between the
// no-load latency and gradientHeadroom times it, which makes the limit
// settle at about the capacity times the headroom plus the allowance, and
// the allowance is a tenth of the limit, at least half a request (see
// Small limits), so that at a capacity of 2 it is about one request queued,
// not a queue of the capacity's size, and at 8 the limit stays within a
// quarter of the capacity. A backend whose latency drifts
// on its own moves the no-load latency at the next probe, and the average
// follows. The docs' adaptive page shows each setting measured on the
// simulator.

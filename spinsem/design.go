package spinsem

// This comment is the design of the package, kept apart from the package
// documentation so that godoc leads with the API.
//
// Design
//
// The state word holds the number of free permits above a resize
// generation, a small counter and four flags: starving (permits go to the
// head of the queue, nobody else may take them), woken (the head of the
// queue has been woken and is on its way to try again, so a Release need not
// wake anyone), waiting (the wait queue is not empty) and closed. The free
// permits are signed: a shrink may leave more held than the size.
//
// Fast path. Acquire takes its permits with one compare-and-swap when enough
// are free and the semaphore is not starving, whether or not goroutines are
// parked: a running goroutine may barge past sleeping ones, which is what
// makes the semaphore fast under contention. Release adds its permits with
// one compare-and-swap (a CAS rather than an add, so that an over-release
// panics before anything changes) and takes the slow path only when a parked
// goroutine may need it: the queue is not empty and nobody has been woken,
// or the semaphore is starving.
//
// Spin. When the permits are not free, Acquire spins before it parks, on
// the bet that a holder releases sooner than parking and waking would take.
// It spins only where this can pay off: with more than one P, and not in
// starvation mode (where permits are handed to parked waiters, so spinning
// could never win). A round re-reads the state, checks the context, tries the
// CAS if the permits are free and then busy-waits briefly. The number of
// rounds adapts, in the spirit of glibc's adaptive mutex: a phase spins at
// most twice the running average of the rounds that successful phases
// needed, plus spinMin, and never more than spinMax; failed phases pull the
// average down, so a phase stays far shorter than a park and a wake-up.
// Spinning never happens while holding the internal mutex, and it stops at
// once, acquiring nothing, when the context is done.
//
// Park. A goroutine that still cannot acquire takes the internal mutex,
// tries once more, and otherwise sets the waiting flag in the same
// compare-and-swap that confirmed the permits were short (so a Release that
// follows is bound to see it), queues itself at the tail of a FIFO queue
// (internal/waitq) and blocks on its own wake channel or on ctx.Done().
// Parking and waking use channels, never the mutex, so testing/synctest sees
// parked goroutines as durably blocked.
//
// Normal mode. A Release that takes the slow path wakes the head of the
// queue if its request fits in the free permits, and sets woken; Releases
// that follow leave the queue alone until the woken goroutine has tried
// again. The woken goroutine competes with arriving ones and may lose: then
// it stays at the front of the queue, where it was (sync.Mutex re-queues it
// at the front; here it never leaves), and keeps its arrival time. Whoever
// clears the woken flag (the woken goroutine, whether it won or lost, or its
// cancellation) looks at the queue again and wakes the next head if it fits,
// so no wake-up is lost. A head that does not fit blocks the waiters behind
// it, but not arriving goroutines.
//
// Starvation mode. Barging can starve a waiter forever, especially a large
// request that needs many permits free at once while small requests keep
// cycling. The semaphore switches to starvation mode when the head of the
// queue has waited more than starvationThreshold, the threshold of
// sync.Mutex's starvation mode (measured with the monotonic clock, which
// testing/synctest fakes), and either does not fit when a Release looks at
// it, or was woken and lost, or was woken and has not run yet. The last case matters on a busy machine: a
// woken goroutine may wait a whole scheduler time slice for a processor while
// the barging goroutines never block, and meanwhile Releases skip the queue.
// So every 64th Release that skips counts in the state word's counter, and
// takes the slow path anyway to check the head's age. In starvation mode
// arriving goroutines neither take permits nor spin (Acquire queues at the
// tail, TryAcquire fails), and freed permits accumulate until they are
// handed, under the mutex, directly to the head of the queue: its permits are
// taken for it, Granted is set and it is woken already holding them, even if
// it was on its way. Waiters are served strictly in queue order, so a large
// request is never passed. The semaphore returns to normal mode when the
// queue empties, or when a handoff goes to a waiter that had waited less than
// the threshold (the rule of sync.Mutex: the waiters behind it arrived later
// still, so nobody starves any more, and the strictly ordered mode costs
// throughput).
//
// Fairness trade-off. Normal mode gives throughput: a goroutine that is
// running takes permits without a context switch, and may take them many
// times in a row while others sleep, so there is no FIFO order and TryAcquire
// barges past waiters. Starvation mode bounds the wait: a waiter is passed by
// barging goroutines for about the threshold at most, then served in queue
// order, whatever its weight.
//
// Cancellation. A done context is checked before anything is taken, and
// while parked. A parked waiter whose context is done leaves the queue
// (waking or serving whoever may now proceed), and the semaphore is as if
// it had never asked. A cancellation that comes before the permits are
// taken wins: every place where an Acquire may take them (the fast path, a
// spin round, the last try under the mutex before it queues, its turn
// after a wake-up) looks at its context after it loads the state and before
// the CAS that takes them from that load, so that a CAS that succeeds takes
// permits that were free while the context was not yet done (see
// takeFrom); and a handoff in starvation mode looks at the head's context
// under the mutex, after the same load, and fails the head instead if it
// is done.
// Permits once taken or handed over are kept: a waiter never gives them
// back on its way out, when another goroutine may already have released
// them.
//
// Resize, Close, observation. Each folds into the word the fast paths
// already read, so they gain no work. Close sets the closed flag, which
// Acquire and TryAcquire test in the same mask as starving, so a closed
// semaphore sends them to the slow path, which fails; parked waiters are
// taken out of the queue and woken to fail. Resize adds the difference of
// sizes to the free permits (below zero if need be) and bumps the
// generation in one compare-and-swap, so a concurrent fast path's
// compare-and-swap fails and it looks again; the size itself lives outside
// the word, in the slot the generation picks (see below why that
// snapshot is exact). Waiting counts parked waiters; OnWait's function is
// looked up only on the slow path.
//
// Why the size may live outside the state word
//
// Only Release needs the size and the free permits together, to refuse an
// over-release, and it must read them as one snapshot. The size lives in two
// slots and the state word's generation picks the slot: a Resize writes the
// new size into the slot the current generation does not use, then changes
// the free permits and the generation in one compare-and-swap. A goroutine
// that loaded the state word finds in its slot the size written before that
// generation was published (atomics are sequentially consistent in Go), and
// the slot is written again only by the Resize after next, after the next
// one has changed the word; so if its own compare-and-swap succeeds, the
// size it read belonged to the word it replaced. A read that loses this race
// may see a later size and think an honest Release an over-release: Release
// then looks again under the mutex, which Resize holds, before it panics. A
// fast-path compare-and-swap that raced with a Resize fails, since the
// generation changed; a stale success would need the generation counter to
// go round a whole cycle of Resizes between one goroutine's load and its
// compare-and-swap, and the free permits to be back at the same value.
//
// Tuning
//
// The spin budget (spinMin, spinMax, spinIters) and starvationThreshold are
// constants. They were chosen by running the harness's scenarios with each
// alternative: no spinning, runtime.Gosched between rounds, longer fixed
// and adaptive budgets. Spinning a few rounds helped; long adaptive phases
// did not, because with more goroutines than processors the holder is often
// not running. Yielding between rounds was dangerous: when the other
// goroutines never block, one yield can cost a whole time slice, and a large
// request that spun with Gosched waited many of them before it even parked.
// BenchmarkSemaphore in benchmarks
// measures the shipped configuration against sync.Mutex, a raw channel and
// x/sync's Weighted; BenchmarkLargeUnderHammer here measures how long a
// large request waits for starvation mode to serve it.
//
// The floor
//
// Uncontended, an Acquire and a Release are one compare-and-swap each, as
// sync.Mutex's Lock and Unlock are, plus what the contract adds: a look
// at the context between the load and the swap of every Acquire (an
// indirect call that a mutex does not make), and the load of the size that
// the over-release check compares with. BenchmarkFloor sets spinsem beside
// sync.Mutex and beside sync.Mutex with that look at the context: spinsem
// costs what the second does, within the noise of paired runs. Shortening
// the fast path further (taking zero permits on it, so that it tests one
// condition fewer) measured slower in paired runs of BenchmarkUncontended,
// where code placement weighs as much as an instruction.

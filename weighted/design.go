package weighted

// This comment is the design of the package, kept apart from the package
// documentation so that godoc leads with the API.
//
// Design
//
// One atomic word holds the state: the number of free permits, shifted left
// by one, and in the low bit a flag that sends every caller to the mutex. It
// is set while the wait queue is not empty, and also while the semaphore is
// closed or a shrink has left more permits held than the size. Everything else (the queue of
// waiters, the size, and every change of the flag) is guarded by a mutex;
// the size is also kept in an atomic word so that the fast paths can read
// it without the mutex.
//
// Fast paths. While the flag is clear nobody waits, so an Acquire or
// TryAcquire whose request fits takes its permits with one compare-and-swap
// of the whole word, and a Release gives them back the same way. Because the
// swap covers the flag too, it fails if a waiter queued in the meantime, and
// the caller falls back to the mutex: no fast path ever passes a waiter.
// Uncontended, an Acquire+Release pair costs two atomic read-modify-writes
// where x/sync's costs four (a Lock and an Unlock each); the rest of the
// pair is the interface calls and the contract's context and argument
// checks, which both pay. BenchmarkSemaphore/uncontended in benchmarks
// compares the two.
//
// Slow path. An Acquire that does not fit takes the mutex and looks again.
// If the queue is still empty and the request now fits, it takes the permits.
// Otherwise it sets the flag with a compare-and-swap from the very state it
// found too small, so that a fast-path Release landing between the check and
// the flag makes the swap fail and the check run again; without that, the
// waiter could go to sleep on permits that had just come back, with nobody
// left to wake it. It then queues a node at the tail, unlocks, and parks on
// the node's channel. A Release that finds the flag set takes the mutex, adds
// its permits, and grants them from the head of the queue for as long as the
// head fits: it subtracts the head's permits, marks it granted, removes it
// and lists it to be woken; once it has unlocked, it wakes the waiters it
// listed. With the flag set only holders of the mutex change the state, and
// the fast paths look only at the flag, so the count of free permits moves
// from the word to a field under the mutex when the flag is set, and back
// when it is cleared: while anyone waits, the Release does all that on a
// copy of the state, loaded once (the flag is set with a read-modify-write
// only if the load finds it clear), and the word is not written at all,
// with weights either, where a Release often frees permits the head cannot
// use. Every processor's copy of the word stays valid for the loads of the
// fast paths. The waiters it granted are
// listed on its own stack, not in the semaphore. It never wakes a waiter that cannot proceed, and a woken waiter
// never has to look at the state again, nor take the mutex: its permits are
// already its own, and it gives its node back to a pool of its own (see
// Allocation). The flag is cleared, under the mutex, when the queue empties
// (and the semaphore is neither closed nor over-held), and the fast paths
// open again.
//
// Resize, Close and observation cost the fast paths nothing: each begins by
// setting the flag, so from then on every fast-path swap fails and every
// caller meets the mutex, where the closed flag, the new size and the
// permits owed are looked at. A TryAcquire that meets the flag takes the
// mutex too and fails only if someone waits or the semaphore is closed, so
// the moment in which a Resize or a Release under the mutex holds the flag
// with nobody waiting makes no TryAcquire fail. A shrink below the permits held cannot store a
// negative count in the word; it stores zero free permits, keeps the excess
// as a debt that releases pay first, and leaves the flag set until the debt
// is paid. A Release on the fast path reads the size after the state word;
// if the permits would exceed that size it does not panic there but retries
// under the mutex, so a Resize racing it can never make a correct Release
// panic. (The converse is not airtight: a Release of more than is held that
// races a shrink, and finds the state word brought back to the value it
// loaded by other releases, can pass the check against the old size. Only
// a program that already over-releases can meet it.) Waiting and OnWait read the queue under the mutex; the wait
// function is loaded only by an Acquire that queues, and with none
// installed nothing reads the clock.
//
// Allocation. Queue nodes and their wake channels are reused (queue.go): in
// steady state a blocked Acquire allocates nothing, where x/sync's allocates
// a list element and a channel each time (see allocs/op in the contended
// scenarios of BenchmarkSemaphore, and TestBlockedAcquireAllocatesNothing).
// A woken waiter puts its node in a sync.Pool, which keeps it in its
// processor's own cache; the holder of the mutex that next needs a node
// gets one the same way. A node is put back only after its wake-up has
// been received, so a wake-up can never reach the next waiter that uses
// the node.
//
// Cancellation. Whether a cancellation or the grant came first is decided
// where the grant is made, under the mutex: before it hands permits to the
// head of the queue, a Release looks at the head's context, and if it is
// done fails the head with the context's error instead and goes on to the
// next. A grant once made is final. A waiter whose select sees its context
// done takes the mutex: if it was granted in the meantime it returns nil
// holding its permits, and if a Resize or Close failed it in the meantime
// it returns that failure, once it has received the wake-up that the grant
// or failure sends after its unlock (so that no wake-up outlives its
// node's use); otherwise it leaves the queue, the waiters behind it that now fit are
// granted, and it returns ctx.Err() holding nothing. So no
// waiter ever gives permits back on its way out, which could not be done
// safely: between the grant and that moment another goroutine may legally
// have released them. An Acquire that takes free permits itself, on the
// fast path or under the mutex before it would queue, looks at its context
// after it loads the state word and before the swap that takes them from
// that load, so that a Release after a cancellation it saw never serves
// it. That is not airtight: the swap compares the word by value, so if
// the context is canceled after the look while other goroutines take and
// give back permits, leaving the word as it was, the swap succeeds and the
// Acquire returns nil after its cancel returned. The permit count stays
// right; only that order is lost (see takeFrom).
//
// Fairness, and what it costs
//
// Admission is strictly first come, first served, whatever the weights: a
// request at the head that does not fit blocks every request behind it,
// however small, so a large request is never starved; and TryAcquire fails
// while anyone is queued. An Acquire is in line from the moment it is
// queued; two callers that both find the fast path open race for it, exactly
// as two callers race for x/sync's mutex.
//
// The price is the convoy. Once more goroutines want permits than there are,
// the queue never empties: each Release hands its permits to a parked waiter
// and the releasing goroutine, calling Acquire again, must queue and park
// behind the others. Every Acquire then costs a park and a wake-up, as a
// blocked send on a buffered channel does; sync.Mutex goes faster only by
// letting a running goroutine barge past parked ones, which this semaphore
// promises never to do. The contended scenarios of BenchmarkSemaphore
// compare it with x/sync's Weighted and with a raw channel, which parks and
// wakes the same way: what is left between this package and the channel is
// its mutex and its waiters' own channels, which a channel does not need
// (see The floor).
//
// The floor. A raw channel keeps its queue under its own lock and parks
// the sender on it, so each of its calls takes one lock. A semaphore with
// weights cannot be a channel: it keeps its queue under a mutex of its own
// and parks each waiter on a channel of the waiter's, so each call takes
// the mutex as well as a channel's lock. lab/handoff's BenchmarkHandOff
// sets four contenders side by side in the convoy, at size 1 and at size
// 4: the raw channel; the same channel with one mutex section per call
// (the least any queue kept under a lock of its own adds); fifo, the least
// that a semaphore with this package's guarantees does (a queue of any
// weights under a mutex, a channel per waiter, nodes reused; its comment
// says why none of its steps can be skipped); and this package. The first
// gap is the price of a lock of one's own; the second, the price of
// waking a waiter by name, on a channel of its own, rather than whoever
// parked first on a shared one; the third, what this package adds to that
// mechanism: its fast path's state word, its context and the observation
// hooks.
//
// Under contention with more than one permit, the runtime runs several
// hand-offs at once, one per processor, and they meet on the mutex. A
// mutex profile and an execution trace of the contended size-4 scenarios
// of BenchmarkSemaphore (goroutines=8 to 512, work=short) first showed the
// mutex held across the wake-up, and taken a third time by the woken
// waiter to give its node back, with goroutines parked on the mutex itself
// in all three places: a second park and wake-up for the Acquire that met
// it. So the grant lists the waiters it serves and wakes them after it
// unlocks, and a woken waiter gives its node back without the mutex (with
// a compare-and-swap on a shared stack at first, through a sync.Pool since;
// see Layout).
//
// How this design was reached, measured step by step, is told with its
// results files in docs/results/weighted/history.md: where the time of a
// hand-off went, by profile and trace; each feature beyond fifo stripped
// from a copy of this package, and added to fifo one at a time (the
// additive contenders of BenchmarkHandOff); a semaphore written apart
// from this project, and this package changed toward it; and the changes
// measured and rejected. No single feature carries the distance above
// fifo; of them, contexts alone stood clear of the noise. A sync.Pool of
// nodes replaced the stack of returned nodes once compared within
// BenchmarkHandOff's two-processor regime (see Layout). The fast path
// stays: uncontended it saves a third of an Acquire+Release, and in the
// convoy no run told its cost from nothing.
//
// The floor for these guarantees is fifo. A semaphore that serves any
// weights in arrival order and never lets a running goroutine barge must
// do, per hand-off, what a raw channel does (a park and a wake-up under a
// lock) and besides: take a lock of its own, since a queue of weights
// cannot be a channel's queue and the decision to queue or to grant must
// be atomic with the look at the free permits; wake the head by name, on
// a channel of the waiter's own or through a wait list that wakes in the
// order of joining, such as sync.Cond's, since a channel shared by all
// would wake whoever parked on it first, and queueing and parking are two
// steps; and keep each waiter's request until it is served, in a node
// reused or allocated or a slot of a ring. fifo does those three
// and nothing else, and in BenchmarkHandOff it stands where the channel
// with one mutex section per call stands, the least that the lock alone
// adds to the channel: nothing in fifo is left to remove, only the lock
// and the wake-up by name, which the guarantees require.
//
// Contexts do not raise that floor. The contract's Acquire takes a
// context, so the least that keeps this package's guarantees is fifo with
// contexts; add1lazy in BenchmarkHandOff is that, with the contract's
// argument checks, and passes semtest. It takes Done before the mutex,
// calls and keeps nothing of a context that can never be done, and leaves
// a canceled waiter's node in fifo's singly linked queue, marked, to be
// dropped when it reaches the head (a canceled head is dropped at once and
// the grant loop runs). In interleaved rounds of both convoys
// (docs/results/weighted/handoff-ctxfloor.txt) it cost what fifo costs,
// within the noise, and this package stood above it in the runs that
// resolved either: this package is not at the floor of its guarantees.
// What it pays above add1lazy lies in what add1lazy lacks (the state word
// and its fast paths, Close, Resize, the observer) or does otherwise (the
// doubly linked queue, the context kept in every node); those runs do not
// say which. Nor do they agree whether add1lazy's design of contexts costs
// less than add1ctx's, or which part of it would, so the queue here stays
// doubly linked, which frees a canceled waiter's node at once where
// add1lazy keeps it queued until the waiters ahead of it are served.
//
// Layout. The fields fill three cache lines, each written by other hands:
// what a holder of the mutex writes (the mutex, the count, the queue's
// ends and lengths); the pool of free nodes, whose fields only a garbage
// collection writes; and what every call reads (the word, the size, the
// debt, the closed flag, the hooks). The size, three lines, makes the allocator place a
// semaphore on a line's start. Before, a semaphore of 112 bytes was
// placed at any multiple of 16, and in three placements of four the word
// shared a line with the stack of returned nodes, so that each woken
// waiter's push made the next call's load of the word miss. That went
// unseen for long: BenchmarkHandOff's runs fall into two regimes that the
// scheduler picks per process, one in which both processors work (CPU
// time about twice the wall time) and one in which the convoy runs
// almost on one, and ratios of rounds paired across the two regimes hid
// differences of a tenth. Compared within the two-processor regime
// (docs/results/weighted/handoff-lines.txt), the layout and the count
// under the mutex each stood clear of the noise, and so did, after them,
// a sync.Pool of nodes in place of the stack that every woken waiter
// pushed on and the holder of the mutex swapped empty: its line moved
// between the processors on every hand-off, where the pool's caches are
// per processor.

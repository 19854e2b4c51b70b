package condsem

// This comment is the design of the package, kept apart from the package
// documentation so that godoc leads with the API.
//
// Design of the plain variant
//
// Acquire(n) takes the mutex and, while fewer than n permits are free, waits
// on the condition variable; once they are free it adds n to the count.
// Release(n) subtracts n and, if anyone waits, broadcasts. That is the
// whole algorithm; everything below is about what it does and does not
// promise.
//
// Why Broadcast and not Signal: requests have weights, so the one waiter
// Signal would wake may not fit in what was freed while another that fits
// sleeps on, a lost wake-up. Waking everyone is the only choice that is
// always correct when the condition differs from waiter to waiter.
//
// The thundering herd: Broadcast wakes every waiter on every Release. Each
// one takes the mutex in turn, rechecks the count, and most go back to
// sleep, so serving one waiter costs work proportional to the number of
// waiters, and the woken goroutines pile onto the mutex that everyone
// needs. How much of that is paid depends on who gets the permit. Here the
// releasing goroutine usually takes it straight back (it barges, see
// below), and a woken waiter leaves the wait list until it runs, so the
// scheduler throttles the herd; in the fair variant every permit goes to a
// sleeping waiter, and the whole herd runs on every hand-off.
// BenchmarkHerd measures both.
//
// Arrival order is not honoured. Woken waiters race for the mutex in
// whatever order the scheduler runs them, and a newcomer, an Acquire on its
// fast path or a TryAcquire, takes free permits before any woken waiter gets
// the mutex back: it barges. This is what makes the plain variant fast when
// it is busy (a goroutine that releases and reacquires keeps running instead
// of handing off to a sleeping one) and what makes it unfair.
//
// Large requests can starve. Acquire(n) needs n permits free at the same
// instant. If small requests keep cycling so that at every moment some
// permit is held, that instant never comes and a waiting Acquire(size) waits
// forever while everyone else makes progress. The fair variant exists to
// show the fix and its price.
//
// Cancellation: sync.Cond's Wait cannot be canceled. context.AfterFunc
// could broadcast when a context is done, but it allocates on every wait
// whose context can be canceled. So the condition variable is condsem's own
// (cond.go), with sync.Cond's semantics: a wait queues a waiter with a wake
// channel of its own, which has a buffer of one, and selects on it and on
// ctx.Done(); Broadcast takes every waiter out of the queue and wakes it.
// The waiters are recycled, so a wait allocates nothing in steady state.
// The buffer is what makes it correct: a waiter checks its context and the
// permits under the mutex, queues itself, and only then releases the mutex
// and blocks, so a Broadcast that comes between the release and the block
// leaves its wake-up in the buffer instead of finding nobody to wake.
// Every time a waiter wakes it looks at its context before it looks at the
// permits, under the mutex: a cancellation that came before the Release
// that freed them wins, and a waiter that took its permits has them for
// good. A canceled waiter holds nothing and leaves the count untouched, so
// the plain variant needs no wake-up on the way out: whatever Broadcast
// woke it woke every other waiter too, so it swallowed nobody's wake-up,
// which is exactly the trap a Signal-based semaphore falls into.
//
// Waking the queue's waiters costs more than sync.Cond's Broadcast, which
// readies all its waiters in one pass under one runtime lock, where this
// sends on each waiter's channel; the fair variant, which broadcasts to
// the whole herd on every grant, paid for it in the contended scenarios of
// BenchmarkSemaphore. So a wait whose context can never be done (Done
// returns nil) waits on a sync.Cond instead, which the same broadcast
// wakes: in paired runs against the version built on sync.Cond alone, that
// took back most of what the channels had cost the fair herd. A broadcast
// that closed one shared channel would ready a cancelable herd in one pass
// too, but it would allocate a channel for every broadcast.
//
// Resize, Close, observation and NewAvailable cost the fast path nothing:
// it compares the permits held with a limit field it already read as the
// size. The limit is the size, or zero once the semaphore is closed, so a
// closed semaphore has no free permit and every Acquire goes to wait, which
// looks at the closed flag and the size under the mutex first. A shrink
// below the permits held leaves fewer than none free until enough come
// back; Resize and Close broadcast, so that waiters that now fit, that are
// now larger than the size, or that must fail, find out. Only an Acquire
// that waits loads the function installed by OnWait, and with none
// installed nothing reads the clock.
//
// Guarantees beyond the contract: none. semtest runs with an empty
// Guarantees, and the package's tests show the barging and the starvation.
//
// Design of the fair variant
//
// Every Acquire that cannot be served at once takes a ticket and joins a
// queue, in arrival order. Only the request at the head of the queue may
// take permits, and only when all of its permits are free; everyone else
// waits behind it. A newcomer, whether Acquire or TryAcquire, takes permits
// only when the queue is empty, so nobody barges. The condition variable is
// still the only way to wake a waiter, and Broadcast still wakes them all,
// so the head can recognise itself; but Fair broadcasts only when the
// head's request fits: after a Release, after a grant (the next head may
// fit too), and when a canceled head leaves the queue. A Release that
// cannot serve the head wakes nobody.
//
// What this buys: requests of any weight are served in arrival order, a
// large request cannot starve (once it is at the head, every permit
// released is kept for it), and TryAcquire never passes a queued waiter.
// semtest checks all three (FIFO, NoBarging, NoStarvation).
//
// What it costs: head-of-line blocking, since small requests that would fit
// wait behind a large head while permits sit idle; a hand-off for every
// permit under contention, since a releasing goroutine can no longer
// reacquire at once but must let the sleeping head run first; and still
// O(waiters) work per grant, because Broadcast cannot wake just the head.
// Waking the head alone, as the weighted package does, removes that last
// cost.
//
// Cancellation: a canceled waiter removes its ticket from the queue. If it
// was the head, the request behind it becomes the head and may fit, so it
// broadcasts; otherwise nothing changed for anyone else. As in the plain
// variant, a woken waiter looks at its context before the permits, so a
// cancellation that came first wins even at the head with its permits free,
// and they go to the request behind it.
//
// Resize, Close and observation work as in the plain variant: the limit the
// newcomer's check reads is zero once closed, and every waiter looks at the
// closed flag and the size when woken, leaving the queue if it must fail.

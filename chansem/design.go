package chansem

// This comment is the design of the package, kept apart from the package
// documentation so that godoc leads with the API.
//
// Design
//
// The channel has one buffer slot per permit. Taking a permit sends a value
// into the channel; giving one back receives a value out of it, and the
// runtime's channel lock makes each step atomic.
//
// What the runtime gives for free: when the buffer is full, senders park in
// the channel's send queue in arrival order, and a receive hands the freed
// slot straight to the first of them (it copies that sender's value into the
// buffer before waking it). So single-permit requests are served first come,
// first served, a newcomer can never take a slot a parked sender is owed, and
// a non-blocking send fails while anyone is parked. Cancellation is a select
// between the send and ctx.Done(); a sender that gives up simply leaves the
// queue.
//
// What it does not give: weighted requests. A channel moves one value at a
// time, so Acquire(n) sends n values one after another. Two such requests
// gathering at once could each hold part of what the other needs and wait
// forever, so a multi-permit request first takes a gate (a channel of one
// slot, so that waiting for it can be canceled too) and only one gathers at
// a time. While it gathers it holds slots nobody can use, and each of its
// sends queues behind the single-permit senders already parked, so
// multi-permit requests are served neither in strict arrival order nor
// quickly under load; they are never starved, because every send eventually
// reaches the head of a FIFO queue. A canceled multi-permit request gives
// back what it gathered.
//
// Two things the channel cannot tell apart need a word of their own each.
//
// Who holds what. The buffer counts the slots of completed acquisitions and
// those of a request still gathering, so its length cannot tell a caller who
// releases more than it holds from one who releases what it holds: checked
// against it, an over-release would take slots a gatherer is owed. So the
// permits of completed acquisitions are counted in an atomic word of their
// own. Release takes its permits off that count with a compare-and-swap that
// panics, changing nothing, if fewer are held, and only then receives; two
// Releases racing for the same permits cannot both pass, and every receive
// finds a value, because the count never exceeds what the buffer holds.
// Lock and Unlock keep the same count, so the two pairs mix freely.
//
// Who is waiting. A gatherer woken by one Release is not parked again until
// it runs its next send, and one handed the gate is not parked at all until
// it runs; meanwhile a Release frees a slot that no parked sender claims,
// and a bare non-blocking send would take it. So an atomic word counts the
// multi-permit Acquires in progress, waiting for the gate or gathering, and
// those ever started. TryAcquire(1) reads it before and after its send: if
// one was in progress at the first look, or started by the second, it gives
// the slot back and fails. An Acquire(1) is not held back that way: only
// TryAcquire promises not to barge, and single-permit requests keep their
// FIFO order among themselves.
//
// Cancellation that comes first wins. A send can complete in the same
// instant the context is done, and the select may pick either. But a slot
// taken by a send is not held until the Acquire counts it: until then no
// Release can take it (the count refuses), so the Acquire is granted its
// permits when it counts them, and that is where it decides. After its last
// send an Acquire looks at its context: if it is done, the cancellation
// came before the grant, and the Acquire gives the slots back and reports
// ctx.Err(); otherwise it counts them held, and the grant is final. The
// non-blocking send that serves the uncontended case looks too: a look
// only before the send would let a cancellation, and then a Release that
// frees the slot, land between the look and the send.
//
// So chansem keeps every guarantee it declares (arrival order for single
// permits, no barging TryAcquire, no starvation) and the contract's exact
// over-release check, rather than dropping a guarantee to stay a bare
// channel: the over-release check is not optional, and once it needs a word
// of its own the barging fix costs only TryAcquire and multi-permit requests.
// The bookkeeping costs the single-permit fast path an atomic add in Acquire
// and a compare-and-swap in Release on top of the channel's own lock; see
// BenchmarkSemaphore in benchmarks, chansem against the raw channel.
//
// That is the floor of exact over-release detection, uncontended: a
// Release must take its permits off a count that Acquire adds to, with a
// read-modify-write that two Releases cannot both pass, since the buffer's
// length also counts slots a waiter has taken but not yet counted held.
// BenchmarkFloor in this package sets the raw channel, the raw channel with
// that count and nothing else, and chansem side by side; alone, chansem
// costs what the counted channel does. In the convoy the count hides in
// the hand-off, and what chansem pays beyond the counted channel is its
// waiting path: the two adds that keep Waiting's count, and the looks at
// the context and the observer.
//
// Measured and rejected: keeping the count of waiting Acquires in the word
// of the held count, so that an Acquire that waited stops waiting and counts
// its permit held with one add instead of two. It bounds the size (the held
// count gets the low 40 bits), and paired runs of BenchmarkFloor and
// BenchmarkContended showed no gain beyond their noise: in the convoy an
// uncontended atomic add is small beside the park and the wake-up.
//
// Beyond the contract
//
// chansem offers Waiting and OnWait (sem.Observer) and NewAvailable; it
// offers neither Resize nor Close.
//
// No Resize: a channel's capacity is fixed when it is made. Growing would
// need a new channel, and moving the parked senders and held slots of the
// old one to it cannot be done atomically. A shrink-only Resize could park
// phantom values in the buffer, but it could never grow back past the
// capacity, and a semaphore that can only shrink is not what callers of
// sem.Resizer expect; so chansem leaves it to the weighted package.
//
// No Close: the only way to fail a sender parked on a channel is a second
// case in its select, a channel that Close would close, and every parked
// Acquire would pay for that case under contention, whether or not the
// semaphore is ever closed. A waiter whose context can never be done
// (context.Background) parks on a bare send instead, as a raw channel does;
// BenchmarkContended measures that path. Callers who need to shut a limit
// down choose weighted or condsem, or cancel their waiters' contexts.
//
// NewAvailable starts with the buffer and the held count filled with the
// permits that are not available. Only the slow paths observe: an Acquire
// that finds no free slot at once, or a multi-permit Acquire when its gate
// or one of its sends would block, counts itself in two atomic words for
// Waiting and, if a function is installed by OnWait, reads the clock.

// Design of redissem. This comment is for the package's maintainers; the
// package documentation and docs/distributed.md are for its users.
//
// Why not the classic recipes
//
// The well-known Redis counting semaphores keep the holders in a sorted set
// scored by the client's timestamp, drop entries older than a timeout, and
// count the caller in if its rank is below the limit. They trust every
// client's clock (a client whose clock runs ahead reaps live holders; one
// whose clock runs behind ranks ahead of them, and either way more than size
// hold at once), need several round trips per acquire with races between
// them (hence the "fair" variant with a counter and a second sorted set, and
// the "correct" one wrapped in yet another lock), and wait by polling.
//
// Design
//
// Every operation is one Lua script, so it is atomic and costs one round
// trip: Acquire, TryAcquire, Release, the refresh of a handle's grants and
// queue entries, and a waiter's withdrawal (scripts.go holds them all). Time comes only from the
// Redis server (the TIME command inside the script): every lease and expiry is
// written and compared in the server's clock, so skew between clients cannot
// admit anyone. The client's clock only paces its own timers and tells a
// holder when to stop trusting its lease.
//
// A request takes a ticket from a counter kept on the server. If nobody
// is queued and its weight fits, it is granted at once; otherwise it joins a
// queue ordered by ticket. Waiters are admitted strictly in ticket order: the
// head is granted as soon as it fits, and a head that does not fit blocks
// everyone behind it, so admission is FIFO for any mix of weights, a large
// request is never starved, and TryAcquire never barges past a queued
// waiter. Admission happens inside whichever script makes room (a release, a
// withdrawal, or the reaping of an expired holder), which records the grant
// and publishes it on the waiter's handle channel (pub/sub).
//
// Every grant is a lease in server time. While a handle holds permits, a
// background goroutine refreshes all of its grants in one script every third
// of the lease (on a Session, each handle on its own schedule, its round
// trip in a goroutine of its own, so that a stalled Cluster master delays
// only the handles whose keys it holds; each grant keeps its own fate).
// The scripts count time from the server's clock but absorb its steps
// (scripts.go): between two scripts at most a third of the caller's lease
// passes, so a step forward reaps no holder that refreshes on time, and a
// step back stretches no lease. A grant whose Done the handle closed by
// its own clock is released in Redis at once, never refreshed on, so a
// holder that returns on Done without a Release leaves nothing held. A holder whose process dies stops refreshing, and the next
// script that runs after its lease passes reaps it and admits the waiters that
// now fit. A waiter's queue entry is a lease too: the handle pushes back the
// entries of all its waiters in the same script as its grants, every poll
// interval (a third of the lease, at most DefaultPollMax) while any wait, so
// the entry of a dead waiter expires and stops blocking the queue, and the
// server work per grant does not grow with the number of waiters. That
// refresh also reports the waiters it finds granted, which catches a
// notification lost while the pub/sub connection was down, and makes Redis
// reap a holder that expired silently. A refresh that fails is retried, so a
// short outage does not cost a waiter its place; a waiter whose entry is
// found gone sends its request again. A waiter whose context is
// done withdraws its entry (or gives back a grant that raced with the
// cancellation), and those behind it are admitted if they now fit, so a
// canceled Acquire leaves the semaphore as if it never happened.
//
// A waiter may hear of its grant late: its notification was delayed (a
// paused process, a stalled connection, a loaded machine) and no refresh
// caught it, or the round trip that granted it took long. Redis starts the
// lease when it grants, and reaps it a lease later if nobody refreshes it;
// the waiter only knows the lease started after the last round trip that
// found it queued. If that bound says the lease may be over already (the
// holder's end of validity, by its monotonic or its wall clock, has
// passed), Redis may have reaped the grant and admitted someone else, so
// the waiter must not act on it: it gives the grant back and asks again,
// at the back of the queue, until its context is done. Acquire thus never
// returns nil for a grant its holder could not trust, and AcquirePermit
// never returns a Permit whose Done is already closed; TryAcquire reports
// false for such a grant.
//
// Every script is idempotent in its request id (a client-generated
// "<handle>/<seq>"), so go-redis may retry a script whose reply was lost
// without taking permits twice; a release sets a grant's count to the value
// the client still holds, only ever downwards, so releases and refreshes
// commute, and a partial release that arrives after the release of the
// rest finds it done. A tombstone lives a lease plus the handle's timeout,
// within which go-redis sends its retries, so a retried release finds it
// even with a ReadTimeout longer than the lease. Release gives back the handle's oldest grants first.
//
// Fencing tokens and lease expiry
//
// Each grant carries a fencing token ([Permit.Token]), drawn when it is
// granted from a counter that moves to max(last + 1, the server's time in
// microseconds): tokens strictly increase in grant order, also across a
// Redis restart that lost the latest writes (an RDB snapshot, an AOF fsynced
// every second, a failover to a replica that lagged), as long as the
// server's clock does not step back and, after a failover that lost
// grants, the promoted replica's clock is behind the old primary's by less
// than the failover took. The counter travels with the data, so a replica
// that received every grant a holder was told of (WithReplicas) keeps the
// order whatever its clock.
//
// [Permit.Done] closes as soon as the holder can no longer be sure Redis
// still holds its lease: at the send time of the last refresh that
// succeeded (for a new grant, of the last request Redis answered before
// granting it), plus the lease, minus a margin: a tenth of the lease for the
// holder to stop, plus a hundredth for clock drift. The server starts the
// lease when it runs the script, after the send, so a holder cut off from
// Redis sees Done close before the server can reap its grant and admit
// someone else, as long as its clock runs no more than a hundredth slower
// than the server's. A timer closes it, not the goroutine that refreshes, so
// a refresh stuck on a cut connection does not delay it; and Done and
// [Permit.Err] compare the clock with that time themselves, so a paused
// process sees it closed as soon as it resumes. A refresh that finds the
// grant gone closes Done at once.
//
// Lost state
//
// If Redis evicts the semaphore's keys (an allkeys-* maxmemory policy) or
// loses them, recreating them empty would admit others beside the holders
// that still believe they hold. The scripts notice keys missing behind the
// counters (or the counters missing for a handle that holds a grant), wipe what
// is left, and refuse every grant, with an error wrapping ErrStateLost, until
// each lease handed out before could have run out: the latest expiry still
// recorded, and at least the lease of the handle that noticed (so give every
// handle of a name the same lease). The semaphore comes back with the size
// recorded in meta if it survived, else with the size the noticing handle
// last saw (a Resize it made or heard of in a reply included). The holders find their grants gone at
// their next refresh. One case stays open: if all the keys vanish (a
// FLUSHALL, a restart without the data) and New, or a handle that holds
// nothing, runs before any holder refreshes, the semaphore looks like a
// name that expired idle and is created afresh, and others may be admitted
// until the holders' next refresh closes their Done. Use maxmemory-policy
// noeviction or a volatile-* policy: the keys of a name in use have no
// TTL, so those never evict them.
//
// Idle names
//
// A name nothing holds or waits on is reclaimed: its tombstones expire
// with the last of them, and its counters a day later (scripts.go). The
// next user creates it afresh, with the size it last saw.
//
// What Redis cannot promise
//
// Redis replicates asynchronously. If the primary fails after granting
// permits and before a replica received the grant, the promoted replica does
// not know it, and admits others: more than size may hold at once.
// [WithReplicas] waits for replicas to confirm each grant, which narrows that
// window without closing it; neither does Redlock against a paused process.
//
// A restart loses writes the same way. Redis restarted from an RDB snapshot,
// or from an append-only file fsynced every second, comes back with the
// semaphore's keys present but stale: the grants made after the snapshot or
// in the last second are gone. Nothing is missing behind the counters, so
// the scripts cannot tell (ErrStateLost needs missing keys), and the
// forgotten permits are granted again while their holders still believe
// they hold them, until the holders' next refresh closes their Done. The
// fencing tokens still increase across such a restart, so a resource that
// checks them rejects the stale holder. Only an append-only file fsynced on
// every write (appendfsync always) keeps every grant Redis acknowledged.
//
// A process paused longer than its lease (a stop-the-world pause, a suspended
// VM, a long page-fault storm) loses its grant while it may still act on it.
// Use the fencing token where the protected resource can check it, and choose
// etcdsem, whose grants are committed by a Raft majority before they are
// reported, when exceeding the limit is a correctness bug rather than a
// brief overload.
//
// Server settings, and what each keeps
//
//   - A server clock that steps (NTP, an operator, a VM restored): no
//     holder is reaped early, and no lease stretched, by the step. Dead
//     holders are reaped up to a lease late after a quiet spell (nothing
//     ran on the name for more than a third of a lease).
//   - maxmemory-policy noeviction (recommended), or volatile-* (the keys of
//     a name in use have no TTL, so they are never evicted): a full Redis
//     still runs releases, withdrawals and refreshes, whose first write
//     cannot grow memory (after which Redis lets a script finish); new
//     requests fail with an error wrapping ErrUnavailable (OOM) until
//     there is room. allkeys-*: keys may be evicted; see Lost state.
//   - Cluster resharding: while the name's slot migrates, the scripts,
//     which name keys that may not exist, are refused (TRYAGAIN, or ASK
//     to a node that lacks some keys); that is ErrUnavailable, retried like
//     an outage, and a migration longer than a lease costs the leases.
//     Move a slot holding semaphores quickly (MIGRATE of its keys at once).
//   - Server refusals (OOM, TRYAGAIN, CLUSTERDOWN, MASTERDOWN, LOADING,
//     READONLY, BUSY, and NOREPLICAS under min-replicas-to-write) are
//     ErrUnavailable: retried in the background for
//     refreshes, releases and withdrawals, returned by a first request.
//
// Release has no error in the contract. If Redis cannot be reached, the
// permits are dropped from this handle's books anyway: the background
// goroutine keeps retrying the release, and if Redis stays out of reach they
// come back when their lease expires. The error reaches the caller through
// [Semaphore.ReleaseErr] and the handler set with [WithErrorHandler].
//
// Scripts read the server's TIME and then write. Redis 5 and later replicate
// the effects of a script, not the script, which makes that safe; the prelude
// asks Redis 3.2 and 4 for effects replication too. The tests run against
// Redis 7.0.

package redissem

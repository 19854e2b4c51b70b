package etcdsem

/*
Design.

A semaphore is a name. Under its key prefix live one key that records the
size, and a queue: one key per Acquire, written by the Acquire itself.

	<prefix><name>/size              the size, written by the first New and by Resize
	<prefix><name>/q/<lease>-<h>-<n> one key per acquisition, value = its weight

Every handle (one New) writes its queue keys on one lease, kept alive by a
session: its own, granted by New, or a Session it shares with other
handles (WithSession), as etcd's concurrency.Session is shared by Mutexes.
If the process dies or loses etcd for longer than the lease's TTL, etcd
deletes its keys, and their permits come back without anyone's help. The
<h> in a key's name is the handle's number in its session, which keeps
apart the keys of handles sharing a lease; the <n> is a request id, never
reused by the handle: it tells the keys the handle tracks from keys it no
longer knows of (see the sweep below). Each handle keeps its own view of
the lease's trust (see lease.view), refreshed by the session's keep-alives,
so that closing a handle ends its calls alone: a handle of its own session
then revokes the lease, a handle on a shared one deletes its keys. A lease
lost, or a Session closed, ends every view at once.

Acquire(n) writes its key and reads the queue ahead of it in one
transaction, so the key's create revision is its place in line. The queue is the set of keys
ordered by create revision, and the rule is:

	a key holds its permits when its weight plus the weights of all keys
	created before it is at most the size.

The keys that hold are therefore always a prefix of the queue whose weights
sum to at most the size: never more than size permits are held, and never
more than size keys hold. Keys only ever leave the queue or shrink (never
grow, and new keys join at the back), so the sum in front of a key only goes
down: once a key holds, it holds until it is deleted, and admission is first
come, first served for any weights, with no clock and no counter anybody
must update.

Resize rewrites the size key, in a transaction that compares the key's
mod revision with the one read (see resize). Growing keeps the rule true:
sums only fit better. Shrinking would not: keys that hold could stop
fitting, and the rule would let a key behind them in as if they did not
hold. So a shrink also records the bound, the create revision of the last
key that holds by the rule with the old size, and how many keys hold then
(which bounds the reads), and the rule becomes: a key holds when it was
created within the bound, or when its weight plus the weights of all keys
created before it is at most the size. The keys that hold are still a
prefix of the queue, a key that holds still holds until it is deleted, and
a key admitted past the bound finds every holder ahead of it in its sum.
A key whose sum fit with the size a waiter counted with may not fit with a
size that shrank since, so confirm compares the size key's mod revision
too, and the waiter reads again if it changed. Each handle watches the size
key (watchSize); a change makes its waiters read the queue again, and those
larger than the new size fail.

A waiter reads only what the rule needs, whatever the queue's length: the
first size+1 keys in line (as many as can hold, and one more) and the key
just ahead of its own (readOps). If every key ahead holds, it is the head of
the waiters: it knows those keys and their weights, and watches the queue,
subtracting the weights of earlier keys as their deletions arrive; it never
polls. Otherwise the key just ahead waits too, and the waiter watches that
key alone, as etcd's Mutex watches its predecessor. When the key ahead
changes (deleted, or touched because it holds now) the waiter reads again;
so each change of the queue sends one event to the head and one to the
waiter behind the changed key, not one to every waiter. A watch starts at
the server's current revision (a watch from a past revision waits for the
server to catch up, up to its resync period), and the waiter reads again if
its view is older. When the head's watch says its key fits, it confirms
(confirm): one transaction that touches its key (rewrites it in place, only
if it still exists with its create revision) and reads the queue again. The
grant is reported only if that read agrees: a watch event may be stale, and
the key may have gone with an expired lease meanwhile (the check etcd's own
Mutex makes after waiting). The touch is how the waiter behind learns that it
is now the head. TryAcquire uses the enqueue transaction and, if the key
does not fit, deletes it again: it fails whenever anyone is ahead, so it
never barges past a waiter.

Release(n) deletes keys of this handle, oldest first. When n is not the sum
of whole keys, the last key touched is rewritten in place with its weight
reduced: a put to an existing key keeps its create revision, so the key
keeps its place (and its fencing token) while holding less. Any n up to the
number of permits the handle holds is therefore accepted, whatever the
weights of the Acquire calls that took them.

A write whose outcome is unknown (a timeout, a lost connection) may still
land later, even after the delete meant to undo it. Such a key would hold
permits on the handle's lease, tracked by nobody, until Close. So after an
unknown outcome the handle sweeps its own keys at every third of the TTL for a
while (sweepWindow), deleting those it does not track, and it sweeps once
every sweepEvery thirds of the TTL in any case. A sweep reads only the
keys under the handle's own <lease>-<h>- prefix.

Waiting reads the whole queue and counts the keys that do not hold by the
rule: a snapshot, one round trip whatever the number of handles.

Cost: an uncontended Acquire is one round trip, Release one round trip,
TryAcquire one round trip on success and two on failure. An Acquire that
waits costs its confirming transaction, and a read each time the key ahead
changes; a waiter costs a watch (a message on the client's shared watch
stream), and a handle one more, on the size key. BenchmarkLock counts the round trips against etcd's Mutex;
BenchmarkDrain counts the watch events per grant while a long queue drains.

Guarantees and limits. FIFO admission for any weights, no starvation of
large requests and no barging are structural: they follow from the rule
above and from etcd's linearizable revisions, not from timing.

A holder is a lease, not a process that can prove it is alive. The handle
trusts its lease only until a safety margin before the earliest moment the
server could expire it, counted from when the last confirmed keep-alive was
sent (see lease); then Permit.Done closes and every call fails with
ErrLeaseLost. A holder that checks Done before acting is told in time when
it is cut off from etcd; a holder paused (GC, swap, a stopped VM) between its
check and its act is not, and can act after etcd handed its permits to
someone else. The fencing token of AcquirePermit closes that gap at the
resource. It also covers the one way the server breaks the lease's
promise: an etcd leader paused longer than a TTL (SIGSTOP, a frozen VM)
revokes, on resuming and before it learns it was deposed, the leases it
believes expired, including those the new leader kept alive (etcd issue
15247, whose fix is skipped by a member that has just ticked). The
holders of those leases learn it at their next keep-alive, after others
may have been admitted. No client-side rule can prevent that: the server
deletes the keys of a lease its holder kept alive.

Release has no error in the sem.Semaphore contract. If etcd cannot be
reached, Release reports the error to the handler and keeps retrying in the
background (the janitor) until the deletion succeeds or the handle is
closed; ReleaseErr returns the error to the caller as well. Either way the
permits come back at the latest when the lease expires. Releasing a grant
whose key is already gone never reports success: it returns, or reports, an
error wrapping ErrLeaseLost.
*/

// Package faults is the fault-injection harness of semacat's distributed
// strategies, etcdsem and redissem. Everything in it is real: servers and
// clients are separate OS processes on loopback ports, a crash is SIGKILL,
// a pause is SIGSTOP, a partition is a proxy that swallows bytes.
//
//   - servers: a 3-member etcd cluster whose members are this test binary
//     re-executed in member mode, redis-server snapshotting to RDB, and a
//     primary, replica and redis-sentinel, and a Redis Cluster in
//     redis-server's cluster mode.
//   - proxy: a toxiproxy proxy per worker and server, run in the test
//     process, that blackholes, delays or cuts connections; or a relay
//     that holds one request back and delivers it after its client gave
//     up on it.
//   - worker: this test binary re-executed as a client that loops acquire,
//     checked write, hold, checked write, release, logging each step to its
//     own fsync'd history file. A checked write first asks the grant whether
//     it is still trusted (Err), as a careful holder does, and skips the
//     write when Done has fired.
//   - probe: in the overtake scenario, the test process asks the server
//     how many permits are in use, every few tens of milliseconds.
//   - fence: the fenced store, accepting a write only with a token at least
//     the largest it accepted, logging every decision.
//   - checker: judges a run from the history files alone.
//
// # Scenarios
//
// Each scenario runs workers on a size-1 semaphore with a short lease
// (the harness's lease constant, etcd's minimum), injects
// its fault, waits for the workers to finish, and checks the histories;
// each prints a summary row (operations, faults, violations, and how long
// after the fault the next worker was granted, p50 and p99):
//
//	kill-holder           SIGKILL of a worker that holds     etcd, redis
//	stop-holder           SIGSTOP of a holder between its writes, for two
//	                      leases: on resuming it must learn from its grant
//	                      that the lease is gone before it writes again
//	stop-after-check      SIGSTOP of a holder between a check that found its
//	                      grant trusted and the write: the late write must
//	                      be rejected by the fence
//	partition-holder      blackhole of a holder's connections for two
//	                      leases, holding for two: Done must fire within
//	                      the lease of the cut
//	broken-ignores-fence  stop-after-check with workers that skip the
//	                      fence: the checker must report the stale write
//	broken-ignores-done   stop-holder with workers that write without
//	                      checking: the checker must report the write
//	kill-leader           SIGKILL of the etcd leader's process, restart
//	                      from its data directory
//	TestRedisKillRestart  SIGKILL of redis-server while a worker holds,
//	                      restart from the RDB snapshot
//	TestSentinelFailover  SIGKILL of the Redis primary while a worker holds;
//	                      the Sentinel promotes the replica
//	TestRedisStall        stall-retries: redis-server stalls (DEBUG SLEEP)
//	                      again and again for longer than the clients'
//	                      read timeout, so go-redis retries what it held
//	                      up; no release may report its lease lost.
//	                      broken-ignores-done: stalls past the
//	                      lease, with holders that ignore Done
//	TestRedisOvertake     overtake: a relay holds a worker's acquire
//	                      request past its round trip's timeout; the
//	                      worker withdraws it on another connection, and
//	                      the request reaches Redis after its withdrawal
//	                      (the row counts those, at least one). It must be
//	                      refused: probes must never see permits in use
//	                      that no worker could hold. broken-no-tombstones:
//	                      workers delete the tombstones of their
//	                      withdrawals, and the checker must report the
//	                      ghost grant
//	TestRedisCluster      SIGKILL of the master that holds the semaphore's
//	                      keys in a Cluster of three masters with a replica
//	                      each; a replica takes over and the old master
//	                      rejoins as its replica. failover: without
//	                      WithReplicas (over-admission reported);
//	                      failover-replicas: with it (no violation);
//	                      broken-ignores-done: holders that act through the
//	                      failover without checking Done
//	TestRedisClockStep    clock-step: the wall clock of redis-server (under
//	                      libfaketime) steps forward by many leases while
//	                      a worker holds, its monotonic clock does not
//	TestRedisFull         full: redis-server refuses every write that
//	                      needs memory (maxmemory, noeviction) for two
//	                      leases, then has memory again
//	TestRedisSlotMigration migrating: the Cluster slot of the semaphore is
//	                      marked MIGRATING/IMPORTING for two leases, no key
//	                      moved, then made stable again
//	TestRedisSessionStalledMaster session-stalled-master: the workers'
//	                      handles are on a Session that also holds a grant
//	                      on another master, which is stopped (SIGSTOP) for
//	                      three leases: no grant on the healthy master may
//	                      end
//
// Each of the last four has a broken-ignores-fence variant: on top of its
// fault, a holder is stopped past its lease between its check and its
// write, and the workers skip the fence; the checker must report the
// stale write. A suspended client (SIGSTOP of the client process beyond
// its lease) is stop-holder, with broken-ignores-done as its broken
// variant.
//
// Losing Redis's unsnapshotted or unreplicated writes may admit a second
// holder, which no lease-based semaphore can prevent once its server forgot
// the grant: those scenarios report over-admission without failing, and
// require the fence to hold.
//
// The default run is bounded for make test: a few workers for a few
// seconds, one fault per scenario, several scenarios at a time.
// SEMACAT_FAULTS=long (make faults) runs more workers for longer, with
// more faults per scenario (the Sentinel fails over once). The sizes of
// both modes are in currentMode in the harness. Both print the table after
// the last scenario.
package faults

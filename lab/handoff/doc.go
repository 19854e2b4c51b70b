// Package handoff races package weighted against the contenders that
// tell where its cost per hand-off goes. BenchmarkHandOff sets weighted
// beside a raw channel, the channel with a mutex section per call,
// golang.org/x/sync/semaphore, fifo (the least a semaphore with
// weighted's guarantees does) and fifo with weighted's features added one
// at a time (add1ctx to add5pool, and add1lazy), in the convoy and with
// weights; BenchmarkHandOffWakeups counts fifo's wake-ups; BenchmarkPair
// asks why weighted's uncontended pair costs more than x/sync's. What the
// runs found is in docs/weighted.md, with the runs in
// docs/results/weighted/.
//
// The package holds only tests. Its contenders exist for these benchmarks
// alone, so they live in the development module, out of the zip of the
// published root module, and run against weighted as a user imports it.
// What needs weighted's test hooks stays in package weighted: the count of
// weighted's own wake-ups, its BenchmarkHandOffWakeups.
//
//	cd lab && go test -run '^$' -bench 'HandOff$' -count 10 ./handoff | benchstat -col /impl -
package handoff

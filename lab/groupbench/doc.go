// Package groupbench races package group, on several strategies, against
// errgroup with SetLimit and sourcegraph/conc's pool: BenchmarkGroup. It
// lives in the development module so that those two libraries never enter
// the graph of a user of the published benchmarks module.
//
//	cd lab && go test -run '^$' -bench Group -count 10 ./groupbench | benchstat -col /impl -
package groupbench

// Package faults is the fault-injection harness of semacat's distributed
// strategies: real servers in their own processes (package servers),
// worker processes that use a strategy and log what they see (package
// worker), a fenced store (package fence), a network fault proxy (package
// proxy), and a checker that judges a run from its histories alone
// (package checker). The scenarios are its tests.
//
// The default test run is bounded for make test; SEMACAT_FAULTS=long runs
// every scenario with more workers, for longer, with repeated faults.
package faults

//go:build race

package limitsim_test

// raceEnabled reports whether the race detector is on: the simulator runs
// several times slower under it, so TestScenarios then runs one small
// scenario for the detector to watch, and the full comparison only without
// it (make test runs both).
const raceEnabled = true

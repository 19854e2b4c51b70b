//go:build !race

package limitsim_test

// raceEnabled reports whether the race detector is on.
const raceEnabled = false

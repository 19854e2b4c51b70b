//go:build !race

package semtest_test

// raceEnabled reports whether the race detector is on.
const raceEnabled = false

//go:build !race

package semtest

// raceEnabled reports whether the race detector is on; the memory-model
// checks rely on it to see a missing happens-before edge.
const raceEnabled = false

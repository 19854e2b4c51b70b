//go:build !race

package solutions_test

// raceEnabled reports whether the test binary runs under the race
// detector (go test -race).
const raceEnabled = false

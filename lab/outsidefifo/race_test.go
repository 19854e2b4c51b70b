//go:build race

package outsidefifo

const raceEnabled = true

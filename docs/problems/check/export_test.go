package check

// RaceEnabled is raceEnabled, for the tests.
const RaceEnabled = raceEnabled

// Package outsideshared is an outside check of package adaptive, kept as a
// check the project did not write. A reviewer who saw only go doc and
// docs/adaptive*.md wrote it against snapshot a04bd61, to measure, in
// testing/synctest fake time on a simulated processor-sharing backend: two
// Limiters sharing one backend; priority classes under overload and at low
// load; and the Start queue's waits, measured exactly against the documented
// bounds.
//
// All of it is in the tests. The cheap checks run in go test; the long
// scenario runs need B8_RUN=1 (README.md).
package outsideshared

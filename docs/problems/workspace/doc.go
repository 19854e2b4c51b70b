// Package workspace is where you answer the problem book of
// docs/problems: one type per problem, each a stub that does nothing yet,
// and one test per problem that runs the book's checker on your answer.
// Nothing here imports the book's answers or its wrong answers.
//
// Fill in a problem's type in patterns.go, classics.go or more.go (add
// fields, build semaphores with the newSemaphore you are given), then run
// its checker:
//
//	SEMACAT_EXERCISE=1 go test -run TestProblem11 ./docs/problems/workspace
//
// Without SEMACAT_EXERCISE the tests are skipped, so the stubs keep the
// repository's tests green. A rejected answer prints the rule it broke and
// the seed of the run that broke it; CHECK_SEED=n with go test -v replays
// that run alone and prints its log.
//
// To work in a module of your own, copy this folder into it, change the
// package clause if you like, and require github.com/semacat/sem/docs
// (README.md in this folder shows how); the tests import only the public
// packages docs/problems/check and docs/problems/judge.
package workspace

import "fmt"

// todo is the error a stub returns: problem n is not written yet.
func todo(n int) error {
	return fmt.Errorf("problem %d is not written yet: fill in its type in the workspace", n)
}

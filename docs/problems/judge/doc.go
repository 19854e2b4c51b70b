// Package judge holds the checkers of the problem book of docs/problems:
// for each problem, the interface a solution implements and a
// [check.Problem] that runs it and judges the run. ProblemN is problem N of
// the book; a student's test runs one on its own answer:
//
//	func TestProblem11(t *testing.T) {
//		judge.Problem11.Test(t, func(n check.NewSemaphore) judge.ReadersWriters {
//			return NewWriterPriority(n)
//		})
//	}
//
// The book's answers, and the wrong answers each checker rejects, are in
// docs/problems/solutions; a student's workspace is docs/problems/workspace.
package judge

// seeds is how many runs each checker makes of a solution. Seed 0 moves
// every goroutine in lockstep; the others vary the timing.
const seeds = 30

// Sizes of Santa's problem.
const (
	Herd     = 9 // reindeer that pull the sleigh
	ElfGroup = 3 // elves that Santa helps at once
)

// Problems 3 to 6, 8, 10 and 11 share a scenario, with different sizes
// or rules.
var (
	Problem3  = multiplexProblem(1)
	Problem4  = multiplexProblem(3)
	Problem5  = barrierProblem(1, seeds)
	Problem6  = barrierProblem(20, 2*seeds)
	Problem8  = lightswitchProblem()
	Problem10 = readersWritersProblem(false)
	Problem11 = readersWritersProblem(true)
)

package workspace

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/semacat/sem/docs/problems/check"
	"github.com/semacat/sem/docs/problems/judge"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// mine skips the checkers unless SEMACAT_EXERCISE is set, so that the
// stubs keep the repository's tests green. In a module of your own, delete
// its calls if you like.
func mine(t *testing.T) {
	if os.Getenv("SEMACAT_EXERCISE") == "" {
		t.Skip("your answer's checker; run it with SEMACAT_EXERCISE=1")
	}
}

type newSem = check.NewSemaphore

func TestProblem1(t *testing.T) {
	mine(t)
	judge.Problem1.Test(t, func(n newSem) judge.Signal { return NewSignal(n) })
}

func TestProblem2(t *testing.T) {
	mine(t)
	judge.Problem2.Test(t, func(n newSem) judge.Rendezvous { return NewRendezvous(n) })
}

func TestProblem3(t *testing.T) {
	mine(t)
	judge.Problem3.Test(t, func(n newSem) judge.Guard { return NewMultiplex(n, 1) })
}

func TestProblem4(t *testing.T) {
	mine(t)
	judge.Problem4.Test(t, func(n newSem) judge.Guard { return NewMultiplex(n, 3) })
}

func TestProblem5(t *testing.T) {
	mine(t)
	judge.Problem5.Test(t, func(s newSem, n int) judge.Barrier { return NewBarrier(s, n) })
}

func TestProblem6(t *testing.T) {
	mine(t)
	judge.Problem6.Test(t, func(s newSem, n int) judge.Barrier { return NewReusableBarrier(s, n) })
}

func TestProblem7(t *testing.T) {
	mine(t)
	judge.Problem7.Test(t, func(n newSem) judge.Queue { return NewQueue(n) })
}

func TestProblem8(t *testing.T) {
	mine(t)
	judge.Problem8.Test(t, func(n newSem) judge.Lightswitch { return NewLightswitch(n) })
}

func TestProblem9(t *testing.T) {
	mine(t)
	judge.Problem9.Test(t, func(n newSem, capacity int) judge.Buffer { return NewBuffer(n, capacity) })
}

func TestProblem10(t *testing.T) {
	mine(t)
	judge.Problem10.Test(t, func(n newSem) judge.ReadersWriters { return NewReadersWriters(n) })
}

func TestProblem11(t *testing.T) {
	mine(t)
	judge.Problem11.Test(t, func(n newSem) judge.ReadersWriters { return NewWriterPriority(n) })
}

func TestProblem12(t *testing.T) {
	mine(t)
	judge.Problem12.Test(t, func(n newSem) judge.Guard { return NewNoStarveMutex(n) })
}

func TestProblem13(t *testing.T) {
	mine(t)
	judge.Problem13.Test(t, func(s newSem, n int) judge.Table { return NewTable(s, n) })
}

func TestProblem14(t *testing.T) {
	mine(t)
	judge.Problem14.Test(t, func(n newSem) judge.Water { return NewWater(n) })
}

func TestProblem15(t *testing.T) {
	mine(t)
	judge.Problem15.Test(t, func(n newSem, chairs int) judge.Barbershop { return NewBarbershop(n, chairs) })
}

func TestProblem16(t *testing.T) {
	mine(t)
	judge.Problem16.Test(t, func(n newSem, size int) judge.Pot { return NewPot(n, size) })
}

func TestProblem17(t *testing.T) {
	mine(t)
	judge.Problem17.Test(t, func(n newSem, table judge.SmokersTable) judge.Smokers { return NewSmokers(n, table) })
}

func TestProblem18(t *testing.T) {
	mine(t)
	judge.Problem18.Test(t, func(n newSem) judge.River { return NewRiver(n) })
}

func TestProblem19(t *testing.T) {
	mine(t)
	judge.Problem19.Test(t, func(n newSem) judge.Workshop { return NewWorkshop(n) })
}

func TestProblem20(t *testing.T) {
	mine(t)
	judge.Problem20.Test(t, func(n newSem) judge.SearchInsertDelete { return NewList(n) })
}

func TestProblem21(t *testing.T) {
	mine(t)
	judge.Problem21.Test(t, func(n newSem) judge.Bathroom { return NewBathroom(n) })
}

func TestProblem22(t *testing.T) {
	mine(t)
	judge.Problem22.Test(t, func(n newSem) judge.SushiBar { return NewSushiBar(n) })
}

func TestProblem23(t *testing.T) {
	mine(t)
	judge.Problem23.Test(t, func(n newSem) judge.Coaster { return NewCoaster(n, judge.CarSeats) })
}

func TestProblem24(t *testing.T) {
	mine(t)
	judge.Problem24.Test(t, func(n newSem) judge.BusStop { return NewBusStop(n, judge.BusCapacity) })
}

func TestProblem25(t *testing.T) {
	mine(t)
	judge.Problem25.Test(t, func(n newSem) judge.ChildCare { return NewChildCare(n, 3) })
}

func TestProblem26(t *testing.T) {
	mine(t)
	judge.Problem26.Test(t, func(n newSem) judge.DiningHall { return NewDiningHall(n) })
}

func TestProblem27(t *testing.T) {
	mine(t)
	judge.Problem27.Test(t, func(n newSem) judge.Cars { return NewCars(n, judge.CarsOnTrack, judge.CarSeats) })
}

func TestProblem28(t *testing.T) {
	mine(t)
	judge.Problem28.Test(t, func(n newSem) judge.Rope { return NewRope(n) })
}

func TestProblem29(t *testing.T) {
	mine(t)
	judge.Problem29.Test(t, func(n newSem, holds int) judge.HilzerShop { return NewHilzerShop(n, holds) })
}

func TestProblem30(t *testing.T) {
	mine(t)
	judge.Problem30.Test(t, func(n newSem, crowd int) judge.PartyRoom { return NewPartyRoom(n, crowd) })
}

func TestProblem31(t *testing.T) {
	mine(t)
	judge.Problem31.Test(t, func(n newSem) judge.Hall { return NewHall(n, judge.Immigrants) })
}

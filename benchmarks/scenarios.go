package benchmarks

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/semacat/sem"
)

// Scenario is one way of loading a semaphore: how many goroutines cycle
// Acquire, work, Release, on a semaphore of what size, with which weights.
type Scenario struct {
	// Name is the benchmark name's scenario part, in benchstat's key=value form.
	Name string
	// Goroutines cycling at once; 1 means the benchmark goroutine alone.
	Goroutines int
	// Size of the semaphore.
	Size int64
	// MaxWeight: each request takes 1..MaxWeight permits, uniformly.
	MaxWeight int64
	// Work is the number of spin units done while holding the permits.
	Work int
}

// Scenarios are the default scenarios.
var Scenarios = []Scenario{
	{Name: "uncontended/size=1", Goroutines: 1, Size: 1, MaxWeight: 1},
	{Name: "goroutines=16/size=1/work=0", Goroutines: 16, Size: 1, MaxWeight: 1},
	{Name: "goroutines=64/size=4/work=short", Goroutines: 64, Size: 4, MaxWeight: 1, Work: 50},
	{Name: "goroutines=16/size=8/weights=1-4", Goroutines: 16, Size: 8, MaxWeight: 4},
}

// Run measures s under the scenario; one op is one Acquire+Release pair.
func (sc Scenario) Run(b *testing.B, s sem.Semaphore) {
	b.ReportAllocs()
	sc.Drive(s, b.N, b.ResetTimer)
}

// Drive performs ops Acquire+Release pairs on s as the scenario describes,
// calling ready once every goroutine is set to start.
func (sc Scenario) Drive(s sem.Semaphore, ops int, ready func()) {
	ctx := context.Background()
	cycle := func(r *rand.Rand) {
		n := int64(1)
		if sc.MaxWeight > 1 {
			n = 1 + r.Int64N(sc.MaxWeight)
		}
		if err := s.Acquire(ctx, n); err != nil {
			panic(fmt.Sprintf("Acquire(%d): %v", n, err))
		}
		Spin(sc.Work)
		s.Release(n)
	}
	if sc.Goroutines <= 1 {
		r := rand.New(rand.NewPCG(1, 2))
		ready()
		for range ops {
			cycle(r)
		}
		return
	}
	parallel(sc.Goroutines, ops, ready, cycle)
}

// grain is how many ops a goroutine claims from the shared budget at once,
// so that the counter itself does not become the contended resource.
const grain = 32

// parallel runs exactly g goroutines that share ops calls of body. (Unlike
// b.RunParallel, whose goroutine count is a multiple of GOMAXPROCS.)
func parallel(g, ops int, ready func(), body func(*rand.Rand)) {
	var claimed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 2))
			<-start
			for {
				end := claimed.Add(grain)
				todo := min(grain, int64(ops)-(end-grain))
				if todo <= 0 {
					return
				}
				for range todo {
					body(r)
				}
			}
		}()
	}
	ready()
	close(start)
	wg.Wait()
}

var spinSink atomic.Int64

// Spin does n units of work (about a nanosecond each) that the compiler
// cannot remove.
func Spin(n int) {
	x := 0
	for i := range n {
		x += i * i
	}
	if x == -1 {
		spinSink.Store(int64(x))
	}
}

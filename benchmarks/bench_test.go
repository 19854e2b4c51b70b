package benchmarks

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// BenchmarkSemaphore runs every scenario against every contender that
// supports it. Compare contenders with `benchstat -col /impl`.
func BenchmarkSemaphore(b *testing.B) {
	for _, sc := range Scenarios {
		for _, c := range Contenders {
			if !c.Supports(sc.Size, sc.MaxWeight) {
				continue
			}
			b.Run(sc.Name+"/impl="+c.Name, func(b *testing.B) {
				sc.Run(b, c.New(sc.Size))
			})
		}
	}
}

// Every contender completes every scenario it supports: the harness is
// tested as code, not just run.
func TestScenariosRun(t *testing.T) {
	for _, sc := range Scenarios {
		for _, c := range Contenders {
			if !c.Supports(sc.Size, sc.MaxWeight) {
				continue
			}
			t.Run(sc.Name+"/impl="+c.Name, func(t *testing.T) {
				s := c.New(sc.Size)
				sc.Drive(s, 1000, func() {})
				if !s.TryAcquire(1) {
					t.Fatal("after the scenario, a permit was still held")
				}
				s.Release(1)
			})
		}
	}
}

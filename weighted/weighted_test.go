package weighted_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var _ sem.Semaphore = (*weighted.Semaphore)(nil)

func TestConformance(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore { return weighted.New(size) },
		semtest.Guarantees{FIFO: true, NoStarvation: true, NoBarging: true})
}

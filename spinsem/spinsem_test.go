package spinsem_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
	"github.com/semacat/sem/spinsem"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var _ sem.Semaphore = (*spinsem.Semaphore)(nil)

func TestConformance(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore { return spinsem.New(size) },
		semtest.Guarantees{NoStarvation: true})
}

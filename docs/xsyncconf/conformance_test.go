//go:build semacat_keys

package xsyncconf_test

import (
	"testing"

	"golang.org/x/sync/semaphore"

	"github.com/semacat/sem"
	"github.com/semacat/sem/semtest"
)

// x/sync's Weighted through semtest, every guarantee claimed.
func TestConformance(t *testing.T) {
	semtest.Run(t, func(size int64) sem.Semaphore { return semaphore.NewWeighted(size) },
		semtest.Guarantees{FIFO: true, UnitFIFO: true, NoStarvation: true, NoBarging: true})
}

package classics_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/semacat/sem/chansem"
	"github.com/semacat/sem/condsem"
	"github.com/semacat/sem/docs/classics"
	"github.com/semacat/sem/spinsem"
	"github.com/semacat/sem/weighted"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// strategies builds, for each strategy, a semaphore of size permits of
// which available are free.
var strategies = []struct {
	name string
	new  classics.NewAvailableFunc
}{
	{"weighted", func(size, available int64) classics.Sized { return weighted.NewAvailable(size, available) }},
	{"condsem", func(size, available int64) classics.Sized { return condsem.NewAvailable(size, available) }},
	{"condsem-fair", func(size, available int64) classics.Sized { return condsem.NewFairAvailable(size, available) }},
	{"spinsem", func(size, available int64) classics.Sized { return spinsem.NewAvailable(size, available) }},
	{"chansem", func(size, available int64) classics.Sized { return chansem.NewAvailable(size, available) }},
}

// returned reports whether done is closed, without waiting.
func returned(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

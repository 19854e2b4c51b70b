package pitfalls_test

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// catch calls f and returns what it panicked with, or nil.
func catch(f func()) (recovered any) {
	defer func() { recovered = recover() }()
	f()
	return nil
}

package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// asMain makes the test binary behave as semdemo itself, so that the demo's
// worker processes (os.Executable re-executed) are workers, not tests.
const asMain = "SEMDEMO_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) != "" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// The demo starts its embedded etcd and workers, and exits by itself.
func TestDemo(t *testing.T) {
	t.Setenv(asMain, "1")
	if err := run("", 3, "semdemo-test", 2, 2, 2e9); err != nil {
		t.Fatal(err)
	}
}

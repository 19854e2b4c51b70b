package redissem_test

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill the server if the test binary dies
// before its cleanup runs (a panic in a goroutine, a timeout's SIGQUIT, a
// SIGKILL), so that no redis-server outlives the tests.
func dieWithTest(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

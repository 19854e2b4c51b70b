package etcdsem_test

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill cmd's process when the test process
// dies, so that a test binary that panics or times out leaves no etcd
// behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

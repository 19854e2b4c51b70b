package devserver

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes the kernel kill cmd's process when the process that
// starts it dies, so that a test binary that panics or times out leaves no
// server or worker behind on a shared machine.
func DieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

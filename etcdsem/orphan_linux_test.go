package etcdsem_test

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill cmd's process when the test process
// dies, so that a test binary that panics or times out leaves no etcd or
// worker behind. Neither forks, so the process itself is all there is to
// end (the lab's devserver.Start also ends what a launcher forks).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

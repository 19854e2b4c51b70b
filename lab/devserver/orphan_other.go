//go:build !linux

package devserver

import "os/exec"

// DieWithParent does nothing where the kernel cannot tie a child's life to
// its parent's; the tests' cleanups kill the processes they started.
func DieWithParent(*exec.Cmd) {}

// Start starts cmd; where the kernel cannot tie a child's life to its
// parent's, the tests' cleanups kill the processes they started.
func Start(cmd *exec.Cmd) error { return cmd.Start() }

// Kill sends SIGKILL to cmd's process, as a crash would, and waits for it
// to end. A command that never started, or whose process is already gone,
// is fine.
func Kill(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
}

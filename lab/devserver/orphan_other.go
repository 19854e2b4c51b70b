//go:build !linux

package devserver

import "os/exec"

// DieWithParent does nothing where the kernel cannot tie a child's life to
// its parent's; the tests' cleanups kill the processes they started.
func DieWithParent(*exec.Cmd) {}

//go:build !linux

package etcdsem_test

import "os/exec"

// dieWithParent does nothing where the kernel cannot tie a child's life to
// its parent's; the tests' cleanups kill the processes they started.
func dieWithParent(*exec.Cmd) {}

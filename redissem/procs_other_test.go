//go:build !linux

package redissem_test

import "os/exec"

// dieWithTest does nothing where the kernel cannot kill a child with its
// parent: there a test binary that dies before its cleanup may leave a
// server behind.
func dieWithTest(*exec.Cmd) {}

//go:build unix

package handoff

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used so far, user and
// system, and whether the platform reports it.
func processCPU() (time.Duration, bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}

//go:build !unix

package handoff

import "time"

// processCPU reports that the platform gives no process CPU time.
func processCPU() (time.Duration, bool) { return 0, false }

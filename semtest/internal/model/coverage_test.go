package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestReachesEveryStep checks that random programs reach every kind of step,
// every kind of context, and every branch of the outcomes the model cannot
// predict, over the correct semaphores of TestCorrect.
func TestReachesEveryStep(t *testing.T) {
	counts := map[string]int{}
	for _, tc := range correct {
		Check(t, tc.newSem, tc.claims, Config{Programs: 500, Seed: 1, Counts: counts})
	}
	t.Log(counts)
	for _, name := range []string{
		"acquire/bg", "acquire/cancelable", "acquire/timeout", "acquire/canceled", "acquire/expired",
		"try", "release", "cancel", "sleep", "overrelease", "cancel+release", "release+cancel", "burst",
		"release+cancel+steal", "steal/granted", "steal/not-granted",
		"outcome/immediate/done-context", "outcome/immediate/zero-weight", "outcome/immediate/exceeds-size",
		"outcome/timed-out", "outcome/try/true", "outcome/try/false",
		"outcome/canceled-after-release/nil", "outcome/canceled-after-release/error",
		"fifo/granted-then-canceled/kept", "fifo/granted-then-canceled/gave-back",
	} {
		assert.Positive(t, counts[name], "%s never reached", name)
	}
}

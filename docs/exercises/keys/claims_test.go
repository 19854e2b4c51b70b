package keys_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// claimsTimeout is far above what a run of the conformance suite takes.
const claimsTimeout = 2 * time.Minute

// checkClaims runs, for every row of the key table under header, the
// overclaiming test of the solution in pkg with the row's claim, and
// requires exactly the failures the row names.
func checkClaims(t *testing.T, header, pkg string) {
	if testing.Short() {
		t.Skip("builds and runs a solution's conformance test once per claim")
	}
	rows := keyTable(t, "docs/exercises.md", header)
	require.NotEmpty(t, rows)
	for _, row := range rows {
		claim := strings.Trim(row.Change, "`")
		t.Run(claim, func(t *testing.T) {
			t.Parallel()
			names, hangs := predicted(row.Fails)
			checkPrediction(t, names, hangs, goTest(t, pkg, claimsTimeout,
				[]string{"SEMACAT_CLAIM=" + claim}, "-tags", "semacat_keys", "-run", "^TestOverclaim$"))
		})
	}
}

// Exercise 1's key: the claims a plain broadcast solution cannot make.
func TestExercise1Key(t *testing.T) {
	checkClaims(t, "| claim added to a plain broadcast solution | what fails |", "docs/exercises/solutions/mysem")
}

// Exercise 5's key, step 2: the claims first fit cannot make.
func TestExercise5Key(t *testing.T) {
	checkClaims(t, "| claim added to first fit | what fails |", "docs/exercises/solutions/fairsem")
}

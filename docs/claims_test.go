// The tests in this file keep the pages' comparisons honest. A sentence
// that says how one contender compares with another in the reference run
// ("below x/sync", "not significant", "level with the channel") carries,
// in its paragraph, a comment naming the comparison and its verdict:
//
//	<!-- claim: condsem < xsync in goroutines=16/size=1/work=0 -->
//
// "<" claims a significantly lower ns/op, ">" a significantly higher one,
// "~" a difference the run cannot tell from none; the scenario is the name
// the results use. Each claim is computed again from the committed
// results.txt with the harness's own statistics (benchstat's Mann-Whitney
// U test), so a page that says a difference the run does not support, or
// calls a significant one insignificant, fails. A paragraph that compares
// contenders without a claim fails too.
package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

var (
	claimRE = regexp.MustCompile(`<!-- claim: (\S+) ([<>~]) (\S+) in (\S+) -->`)
	// comparisonRE matches prose that compares contenders by a measurement.
	comparisonRE = regexp.MustCompile(`(?is)(not significant|is significant|difference is significant|` +
		`\b(below|above|level with|faster than|slower than|no slower than|cheaper than|more than|less time than|more time than|less\s+time\s+per\s+\S+\s+than)\s+` +
		"(x/sync|`?sync\\.Mutex`?|the raw channel|a raw channel|the mutex|the channel|chansem|condsem|weighted|spinsem)" + `(\W|$))`)
)

// howToRead are phrases that explain what a marked ratio means, or
// compare something other than time (the fairness index): no claim.
var howToRead = []string{
	"a ratio marked not significant",
	"the run marks the ratio not significant",
	"the run cannot tell from 1 as not significant",
	"falls\nwell below the mutex's", // the fairness index
	"a ratio marked \"not significant\"",
}

// claim is one comparison a page makes.
type claim struct {
	impl, op, ref, scenario string
}

func (c claim) String() string {
	return fmt.Sprintf("%s %s %s in %s", c.impl, c.op, c.ref, c.scenario)
}

// verdict is what the run says of impl against ref: "<", ">" or "~".
func verdict(run *report.Run, c claim) (string, report.Comparison, error) {
	cmp, ok := run.Compare(c.scenario, c.impl, c.ref)
	switch {
	case !ok:
		return "", cmp, fmt.Errorf("%s and %s did not both run %s", c.impl, c.ref, c.scenario)
	case !cmp.Significant():
		return "~", cmp, nil
	case cmp.Ratio < 1:
		return "<", cmp, nil
	default:
		return ">", cmp, nil
	}
}

// checkClaims reports every claim of md the run contradicts, and every
// paragraph that compares contenders without a claim.
func checkClaims(md string, run *report.Run) []string {
	var errs []string
	md = fenceRE.ReplaceAllString(blockRE.ReplaceAllString(md, ""), "")
	for _, para := range strings.Split(md, "\n\n") {
		claims := claimRE.FindAllStringSubmatch(para, -1)
		prose := claimRE.ReplaceAllString(para, "")
		for _, ok := range howToRead {
			prose = strings.ReplaceAll(prose, ok, "")
		}
		if len(claims) == 0 {
			if m := comparisonRE.FindString(prose); m != "" {
				errs = append(errs, fmt.Sprintf("%q compares contenders without a claim comment: %q", m, firstLine(para)))
			}
			continue
		}
		for _, m := range claims {
			c := claim{impl: m[1], op: m[2], ref: m[3], scenario: m[4]}
			got, cmp, err := verdict(run, c)
			switch {
			case err != nil:
				errs = append(errs, fmt.Sprintf("claim %s: %v", c, err))
			case got != c.op:
				errs = append(errs, fmt.Sprintf("claim %s: the run says %s %s %s (ratio %.2f, p=%.2f)", c, c.impl, got, c.ref, cmp.Ratio, cmp.P))
			}
		}
	}
	return errs
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// claimPages are the pages that may compare contenders: the course's
// pages, the exercises' rubrics and the written answers of the key.
func claimPages(t *testing.T) []string {
	pages, err := filepath.Glob("*.md")
	require.NoError(t, err)
	return append(pages, "exercises/rubrics.md", "exercises/solutions/README.md")
}

func referenceRun(t *testing.T) *report.Run {
	f, err := os.Open(referenceResults)
	require.NoError(t, err)
	defer f.Close()
	run, err := report.Parse(f, "results.txt")
	require.NoError(t, err)
	return run
}

func TestClaimsAgainstReferenceRun(t *testing.T) {
	run := referenceRun(t)
	checked := 0
	for _, page := range claimPages(t) {
		md, err := os.ReadFile(page)
		require.NoError(t, err)
		checked += len(claimRE.FindAllString(string(md), -1))
		for _, e := range checkClaims(string(md), run) {
			t.Errorf("docs/%s: %s", page, e)
		}
	}
	assert.Positive(t, checked, "no page states a claim")
}

// The checker itself can fail: each page below is reported, against the
// reference run (condsem is significantly below x/sync with 16 goroutines
// on size 1; weighted cannot be told from it).
func TestClaimsChecker(t *testing.T) {
	run := referenceRun(t)
	const sc = "goroutines=16/size=1/work=0"
	for _, tc := range []struct{ name, md, wantErr string }{
		{"true claims", "condsem is below x/sync, weighted level with it.\n<!-- claim: condsem < xsync in " + sc + " -->\n<!-- claim: weighted ~ xsync in " + sc + " -->\n", ""},
		{"significant called not", "condsem's ratio is not significant.\n<!-- claim: condsem ~ xsync in " + sc + " -->\n", "the run says condsem < xsync"},
		{"insignificant called below", "weighted is below x/sync.\n<!-- claim: weighted < xsync in " + sc + " -->\n", "the run says weighted ~ xsync"},
		{"wrong direction", "condsem is above x/sync.\n<!-- claim: condsem > xsync in " + sc + " -->\n", "the run says condsem < xsync"},
		{"no such scenario", "<!-- claim: condsem < xsync in nosuch/scenario -->\n", "did not both run"},
		{"comparison without claim", "weighted runs below x/sync here.\n", "without a claim"},
		{"not significant without claim", "the ratio is marked not significant.\n", "without a claim"},
		{"claim in another paragraph", "weighted is below x/sync.\n\n<!-- claim: weighted ~ xsync in " + sc + " -->\n", "without a claim"},
		{"comparison across lines", "spinsem takes less\ntime per op than `sync.Mutex`.\n", "without a claim"},
		{"comparison of two strategies", "condsem stays above spinsem here.\n", "without a claim"},
		{"no comparison", "weighted keeps arrival order.\n", ""},
		{"more than a threshold", "a waiter that has waited more than the threshold.\n", ""},
	} {
		errs := checkClaims(tc.md, run)
		if tc.wantErr == "" {
			assert.Empty(t, errs, tc.name)
			continue
		}
		if assert.NotEmpty(t, errs, tc.name) {
			assert.Contains(t, errs[0], tc.wantErr, tc.name)
		}
	}
}

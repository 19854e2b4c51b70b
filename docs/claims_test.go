// The tests in this file keep the pages' comparisons honest. A sentence
// that says how one contender compares with another in the reference run
// ("below x/sync", "not significant", "level with the channel") carries,
// in its paragraph, a comment naming the comparison and its verdict:
//
//	<!-- claim: condsem < xsync in goroutines=16/size=1/work=0 -->
//
// "<" claims a significantly lower ns/op, ">" a significantly higher one,
// "~" a difference the run cannot tell from none; the scenario is the name
// the results use. A claim about the fairness index (Jain's index of the
// latency pass) starts with "fairness":
//
//	<!-- claim: fairness spinsem ~ mutex in goroutines=16/size=1/work=0 -->
//
// Each claim is computed again from the committed results.txt with the
// harness's own statistics (benchstat's Mann-Whitney U test), so a page
// that says a difference the run does not support, or calls a significant
// one insignificant, fails. A paragraph, or an item of a list, that
// compares contenders without a claim of its own fails too: the claims of
// one bullet do not cover the comparisons of its neighbours.
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

	"golang.org/x/perf/benchmath"

	"github.com/semacat/sem/benchmarks/semabench/report"
)

var (
	claimRE = regexp.MustCompile(`<!-- claim: (fairness )?(\S+) ([<>~]) (\S+) in (\S+) -->`)
	// comparisonRE matches prose that compares contenders by a measurement.
	comparisonRE = regexp.MustCompile(`(?is)(not significant|is significant|difference is significant|` +
		`\b(below|above|level with|faster than|slower than|no slower than|cheaper than|more than|less time than|more time than|less\s+time\s+per\s+\S+\s+than)\s+` +
		"(x/sync|`?sync\\.Mutex`?|the raw channel|a raw channel|the mutex|the channel|chansem|condsem|weighted|spinsem)" + `(\W|$)|` +
		// a comparison that names no contender after it: "the cheaper of
		// the two", "its fairness index is the lower", "fairer", "the
		// same direction", "significantly above".
		`\b(cheaper|dearer|faster|slower|fairer|less fair)\s+of\s+the\s+(two|three|four)\b|` +
		`\bis\s+the\s+(lower|higher|cheaper|dearer|faster|slower|fairer)\b|` +
		`\bthe\s+same\s+direction\b|\bsignificantly\s+(above|below|higher|lower|faster|slower|cheaper|dearer)\b)`)
)

// sweepingRE matches prose that generalizes a comparison to scenarios it
// does not name ("the other contended scenarios show the same
// direction"): no claim can check it, since a claim names one scenario, so
// it fails even next to claims.
var sweepingRE = regexp.MustCompile(`(?is)\bthe\s+same\s+direction\b|\bthe\s+other\s+(contended\s+)?scenarios\s+(show|agree|say)\b`)

// howToRead are phrases that explain what a marked ratio means: no claim.
var howToRead = []string{
	"a ratio marked not significant",
	"the run marks the ratio not significant",
	"the run cannot tell from 1 as not significant",
	"a ratio marked \"not significant\"",
}

// claim is one comparison a page makes: of time per op, or of the
// fairness index when fairness is set.
type claim struct {
	fairness                bool
	impl, op, ref, scenario string
}

func (c claim) String() string {
	s := fmt.Sprintf("%s %s %s in %s", c.impl, c.op, c.ref, c.scenario)
	if c.fairness {
		return "fairness " + s
	}
	return s
}

// compareFairness compares impl's fairness index with ref's in scenario
// as the run compares times: medians' ratio, Mann-Whitney U test.
func compareFairness(run *report.Run, scenario, impl, ref string) (report.Comparison, bool) {
	a, b := run.Sample(scenario, impl, report.Jain), run.Sample(scenario, ref, report.Jain)
	if a == nil || b == nil {
		return report.Comparison{}, false
	}
	ca := benchmath.AssumeNothing.Summary(a, report.Confidence).Center
	cb := benchmath.AssumeNothing.Summary(b, report.Confidence).Center
	if cb == 0 {
		return report.Comparison{}, false
	}
	c := benchmath.AssumeNothing.Compare(a, b)
	return report.Comparison{Ratio: ca / cb, P: c.P, Alpha: c.Alpha}, true
}

// verdict is what the run says of impl against ref: "<", ">" or "~".
func verdict(run *report.Run, c claim) (string, report.Comparison, error) {
	cmp, ok := run.Compare(c.scenario, c.impl, c.ref)
	if c.fairness {
		cmp, ok = compareFairness(run, c.scenario, c.impl, c.ref)
	}
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
	for _, para := range units(md) {
		claims := claimRE.FindAllStringSubmatch(para, -1)
		prose := claimRE.ReplaceAllString(para, "")
		for _, ok := range howToRead {
			prose = strings.ReplaceAll(prose, ok, "")
		}
		if m := sweepingRE.FindString(prose); m != "" {
			errs = append(errs, fmt.Sprintf("%q generalizes a comparison to scenarios it does not name; name them and claim each: %q", m, firstLine(para)))
		}
		if len(claims) == 0 {
			if m := comparisonRE.FindString(prose); m != "" {
				errs = append(errs, fmt.Sprintf("%q compares contenders without a claim comment: %q", m, firstLine(para)))
			}
			continue
		}
		for _, m := range claims {
			c := claim{fairness: m[1] != "", impl: m[2], op: m[3], ref: m[4], scenario: m[5]}
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

// itemRE matches the start of a list item: "- ", "* " or "1. " at the
// start of a line.
var itemRE = regexp.MustCompile(`(?m)^\s*([-*]|\d+\.)\s`)

// units splits md into the spans a claim covers: paragraphs, and within a
// paragraph each item of a list.
func units(md string) []string {
	var out []string
	for _, para := range strings.Split(md, "\n\n") {
		starts := itemRE.FindAllStringIndex(para, -1)
		prev := 0
		for _, s := range starts {
			if s[0] > prev {
				out = append(out, para[prev:s[0]])
			}
			prev = s[0]
		}
		out = append(out, para[prev:])
	}
	return out
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

func referenceRun(t *testing.T) *report.Run { return parseRun(t, referenceResults) }

// checkerRun is a run the checker's own test reads instead of the
// reference run, so that it does not change when the reference run is
// made again: the 16-goroutine, size-1 scenario of the reference run of
// 2026-11-28T05:00, in which condsem is significantly below x/sync,
// weighted cannot be told from it, and spinsem's fairness index is below
// the mutex's.
const checkerRun = "testdata/claims-run.txt"

func parseRun(t *testing.T, path string) *report.Run {
	f, err := os.Open(path)
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

// The checker itself can fail: each page below is reported, against
// checkerRun.
func TestClaimsChecker(t *testing.T) {
	run := parseRun(t, checkerRun)
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
		{"cheaper of the two without claim", "spinsem is the cheaper of the two.\n", "without a claim"},
		{"index the lower without claim", "its fairness index is the lower.\n", "without a claim"},
		{"same direction next to a claim", "condsem is below x/sync; the other contended scenarios show the same direction.\n<!-- claim: condsem < xsync in " + sc + " -->\n", "generalizes a comparison"},
		{"significantly above without claim", "condsem is significantly above here.\n", "without a claim"},
		{"claim in another bullet", "- weighted is below x/sync.\n- condsem is below x/sync.\n  <!-- claim: condsem < xsync in " + sc + " -->\n", "without a claim"},
		{"claims in their bullets", "- weighted is level with x/sync.\n  <!-- claim: weighted ~ xsync in " + sc + " -->\n- condsem is below x/sync.\n  <!-- claim: condsem < xsync in " + sc + " -->\n", ""},
		{"true fairness claim", "weighted's fairness index is level with the channel's.\n<!-- claim: fairness weighted ~ chan in " + sc + " -->\n", ""},
		{"fairness called lower", "weighted's fairness index is the lower.\n<!-- claim: fairness weighted < chan in " + sc + " -->\n", "the run says weighted ~ chan"},
		{"lower fairness called level", "spinsem's fairness index is level with the mutex's.\n<!-- claim: fairness spinsem ~ mutex in " + sc + " -->\n", "the run says spinsem < mutex"},
		{"fairness called level", "the fair variant's index is level with the plain one's.\n<!-- claim: fairness condsem ~ condsem-fair in " + sc + " -->\n", "the run says condsem < condsem-fair"},
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

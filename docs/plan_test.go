package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The session plan of README.md covers the whole course: every page of
// docs/ is read in some session, and so is the problem book.
func TestSessionPlanCoversEveryPage(t *testing.T) {
	md, err := os.ReadFile("README.md")
	require.NoError(t, err)
	plan := sessionPlan(string(md))
	require.NotEmpty(t, plan, "README.md has no session plan")
	pages, err := filepath.Glob("*.md")
	require.NoError(t, err)
	pages = append(pages, "problems/README.md")
	for _, page := range pages {
		if page == "README.md" {
			continue
		}
		assert.Contains(t, plan, "]("+page+")", "no session of the plan reads %s", page)
	}
}

// sessionPlan is the section of the course map that plans the sessions.
func sessionPlan(md string) string {
	start := regexp.MustCompile(`(?m)^## A course in .* sessions$`).FindStringIndex(md)
	if start == nil {
		return ""
	}
	rest := md[start[1]:]
	if end := strings.Index(rest, "\n## "); end >= 0 {
		rest = rest[:end]
	}
	return rest
}

// Every exercise has a rubric, and so does the written defence of session
// 10, the one session whose work is not a numbered exercise; the plan
// links that rubric.
func TestEveryExerciseHasARubric(t *testing.T) {
	exercises, err := os.ReadFile("exercises.md")
	require.NoError(t, err)
	rubrics, err := os.ReadFile("exercises/rubrics.md")
	require.NoError(t, err)
	heading := regexp.MustCompile(`(?m)^## (\d+)\. `)
	var numbers []string
	for _, m := range heading.FindAllStringSubmatch(string(exercises), -1) {
		numbers = append(numbers, m[1])
	}
	require.NotEmpty(t, numbers, "no numbered exercise in exercises.md")
	graded := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(string(rubrics), -1) {
		graded[m[1]] = true
	}
	for _, n := range numbers {
		assert.True(t, graded[n], "exercise %s has no rubric in exercises/rubrics.md", n)
	}
	assert.Contains(t, string(rubrics), "\n## Session 10. ", "session 10's defence has no rubric")
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, sessionPlan(string(readme)), "(exercises/rubrics.md#session-10-defend-a-choice)", "the plan does not link session 10's rubric")
}

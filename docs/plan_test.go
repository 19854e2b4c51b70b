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

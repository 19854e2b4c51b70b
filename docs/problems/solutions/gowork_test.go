package solutions_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The workspace README's go.work for a student's module replaces every
// module of the repository that the docs module requires, as the
// repository's own go.work does, and nothing that is gone.
func TestWorkspaceGoWorkReplacesWhatDocsRequires(t *testing.T) {
	modules := func(path string, re *regexp.Regexp) []string {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		var mods []string
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			mods = append(mods, m[1])
		}
		slices.Sort(mods)
		return slices.Compact(mods)
	}
	required := modules("../../go.mod", regexp.MustCompile(`(?m)^\s+(github\.com/semacat/sem\S*) v`))
	readme := modules("../workspace/README.md", regexp.MustCompile(`(?m)^\s+(github\.com/semacat/sem\S*) v\S+ => \$REPO`))
	repo := modules("../../../go.work", regexp.MustCompile(`(?m)^\s+(github\.com/semacat/sem\S*) v\S+ => \./`))
	require.NotEmpty(t, required)
	for _, m := range required {
		require.Contains(t, readme, m, "workspace/README.md's go.work must replace %s, which the docs module requires", m)
	}
	for _, m := range readme {
		require.Contains(t, repo, m, "workspace/README.md's go.work replaces %s, which the repository's go.work does not: is it gone?", m)
	}
}

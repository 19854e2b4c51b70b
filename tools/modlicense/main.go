// Command modlicense reports the license of each module zip it is given, as
// pkg.go.dev would detect it, and fails unless every one holds the wanted
// license. tools/releasecheck.sh runs it on every published zip.
//
// Usage:
//
//	modlicense [-want BSD-3-Clause] MODULE.zip ...
//
// A zip as the module proxy serves it holds its files under MODULE@VERSION/.
// pkg.go.dev reads the license files at the module's root (LICENSE, COPYING
// and their variants), detects each with github.com/google/licensecheck, and
// shows the documentation only when the detected licenses cover at least
// 75% of such a file. modlicense applies the same rule: the module passes
// when one of its root license files matches the wanted license, and no
// root license file is left below that coverage.
package main

import (
	"archive/zip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/google/licensecheck"
)

// minCoverage is pkg.go.dev's threshold: the share of a license file's
// words, in percent, that the detected licenses must cover.
const minCoverage = 75

// licenseFiles are the names pkg.go.dev reads as license files at a
// module's root, compared in lower case.
var licenseFiles = []string{
	"copying", "copying.md", "copying.markdown", "copying.txt",
	"licence", "licence.md", "licence.markdown", "licence.txt",
	"license", "license.md", "license.markdown", "license.txt",
	"license-2.0.txt", "licence-2.0.txt", "license-apache", "licence-apache",
	"license-apache-2.0.txt", "licence-apache-2.0.txt", "license-mit", "licence-mit",
	"license.mit", "licence.mit", "license.code", "licence.code",
	"license.docs", "licence.docs", "license.rst", "licence.rst",
	"mit-license", "mit-licence", "mit-license.md", "mit-licence.md",
	"mit-license.markdown", "mit-licence.markdown", "mit-license.txt", "mit-licence.txt",
	"mit_license", "mit_licence", "unlicense", "unlicence",
}

func main() {
	want := flag.String("want", "BSD-3-Clause", "the license every module must carry, as a licensecheck (SPDX) identifier")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modlicense [-want ID] MODULE.zip ...")
		os.Exit(2)
	}
	failed := false
	for _, name := range flag.Args() {
		mod, found, err := detect(name)
		switch {
		case err != nil:
			fmt.Fprintf(os.Stderr, "modlicense: %s: %v\n", name, err)
			failed = true
		case !slices.ContainsFunc(found, func(f file) bool { return f.ok(*want) }):
			fmt.Printf("%s: %s: no license file at the module's root is recognised as %s; "+
				"put the %s text in a LICENSE file in the module's folder\n",
				mod, describe(found), *want, *want)
			failed = true
		default:
			fmt.Printf("%s: %s\n", mod, describe(found))
		}
	}
	if failed {
		os.Exit(1)
	}
}

// file is one license file at a module's root and what licensecheck saw.
type file struct {
	name string
	cov  licensecheck.Coverage
}

// ok reports whether f is recognised as the license id alone.
func (f file) ok(id string) bool {
	return f.cov.Percent >= minCoverage && len(f.cov.Match) > 0 &&
		!slices.ContainsFunc(f.cov.Match, func(m licensecheck.Match) bool { return m.ID != id })
}

// describe says what was found: "LICENSE: BSD-3-Clause (100% of the text)".
func describe(found []file) string {
	if len(found) == 0 {
		return "no license file"
	}
	var parts []string
	for _, f := range found {
		var ids []string
		for _, m := range f.cov.Match {
			if !slices.Contains(ids, m.ID) {
				ids = append(ids, m.ID)
			}
		}
		if len(ids) == 0 {
			ids = []string{"no known license"}
		}
		parts = append(parts, fmt.Sprintf("%s: %s (%.0f%% of the text)", f.name, strings.Join(ids, " + "), f.cov.Percent))
	}
	return strings.Join(parts, "; ")
}

// detect scans the license files at the root of the module in the zip
// named name, and returns the module's path@version.
func detect(name string) (string, []file, error) {
	z, err := zip.OpenReader(name)
	if err != nil {
		return "", nil, err
	}
	defer z.Close()
	// Every file is under MODULE@VERSION/, and a module path has no @.
	i := slices.IndexFunc(z.File, func(f *zip.File) bool { return !strings.HasSuffix(f.Name, "/") })
	if i < 0 {
		return "", nil, errors.New("the zip holds no file")
	}
	first := z.File[i].Name
	at := strings.Index(first, "@")
	slash := strings.Index(first[max(at, 0):], "/")
	if at < 0 || slash < 0 {
		return "", nil, fmt.Errorf("%s is not under MODULE@VERSION/: not a module zip", first)
	}
	mod := first[:at+slash]
	var found []file
	for _, zf := range z.File {
		dir, base := path.Split(zf.Name)
		if dir != mod+"/" || !slices.Contains(licenseFiles, strings.ToLower(base)) {
			continue
		}
		text, err := read(zf)
		if err != nil {
			return mod, nil, fmt.Errorf("%s: %w", zf.Name, err)
		}
		found = append(found, file{base, licensecheck.Scan(text)})
	}
	return mod, found, nil
}

func read(zf *zip.File) ([]byte, error) {
	r, err := zf.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Command modproxy writes module versions from a git repository into a
// folder laid out as a module proxy (GOPROXY=file:///folder), so that the
// go command can fetch them as a user would fetch a release: the zip is the
// one the module proxy would serve for that tag, built by
// golang.org/x/mod/zip from the tagged commit. tools/releasecheck.sh uses it.
//
// Usage:
//
//	modproxy -repo DIR -out PROXY MODULE@VERSION=SUBDIR@TAG ...
//
// for instance github.com/semacat/sem/etcdsem@v0.2.0=etcdsem@etcdsem/v0.2.0.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	repo := flag.String("repo", ".", "the git repository holding the tags")
	out := flag.String("out", "", "the proxy folder to write into")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy -repo DIR -out PROXY MODULE@VERSION=SUBDIR@TAG ...")
		os.Exit(2)
	}
	for _, arg := range flag.Args() {
		if err := publish(*repo, *out, arg); err != nil {
			fmt.Fprintf(os.Stderr, "modproxy: %s: %v\n", arg, err)
			os.Exit(1)
		}
	}
}

// publish writes the .info, .mod and .zip of one module version, and adds
// the version to the module's list.
func publish(repo, out, arg string) error {
	mv, src, ok := strings.Cut(arg, "=")
	modPath, version, ok1 := strings.Cut(mv, "@")
	subdir, tag, ok2 := strings.Cut(src, "@")
	if !ok || !ok1 || !ok2 {
		return fmt.Errorf("want MODULE@VERSION=SUBDIR@TAG")
	}
	if subdir == "." {
		subdir = ""
	}
	m := module.Version{Path: modPath, Version: version}
	escaped, err := module.EscapePath(modPath)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, escaped, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(dir, version)
	var zipped bytes.Buffer
	if err := zip.CreateFromVCS(&zipped, m, repo, tag, subdir); err != nil {
		return err
	}
	gomod, err := git(repo, "show", tag+":"+path.Join(subdir, "go.mod"))
	if err != nil {
		return err
	}
	when, err := git(repo, "log", "-1", "--format=%cI", tag)
	if err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(when)))
	if err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, t.UTC()})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{".zip": zipped.Bytes(), ".mod": gomod, ".info": info} {
		if err := os.WriteFile(base+name, data, 0o644); err != nil {
			return err
		}
	}
	list, err := os.OpenFile(filepath.Join(dir, "list"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(list, version)
	return errors.Join(err, list.Close())
}

func git(repo string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = repo
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}

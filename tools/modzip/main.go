// Command modzip checks what each module zip it is given carries: no more
// than a stated size, counted uncompressed (what a user's module cache
// holds, whatever the compression makes of it), and no import of another
// module's internal/ packages in any Go file, whatever its build
// constraints (the go command refuses such an import only when a user
// builds for that platform or with that tag). tools/releasecheck.sh runs it
// on every published zip.
//
// Usage:
//
//	modzip MODULE.zip=LIMIT_KiB ...
//
// A zip as the module proxy serves it holds its files under MODULE@VERSION/.
package main

import (
	"archive/zip"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"strconv"
	"strings"
)

func main() {
	failed := false
	for _, arg := range os.Args[1:] {
		file, limit, ok := strings.Cut(arg, "=")
		kib, err := strconv.Atoi(limit)
		if !ok || err != nil {
			fmt.Fprintf(os.Stderr, "modzip: %q: want MODULE.zip=LIMIT_KiB\n", arg)
			os.Exit(2)
		}
		report, err := check(file, kib)
		if err != nil {
			fmt.Printf("%s: %v\n", file, err)
			failed = true
			continue
		}
		fmt.Println(report)
	}
	if failed {
		os.Exit(1)
	}
}

// check reads one zip and says what it holds, or what is wrong with it.
func check(file string, limitKiB int) (string, error) {
	r, err := zip.OpenReader(file)
	if err != nil {
		return "", err
	}
	defer r.Close()
	var size uint64
	var module string
	var foreign []string
	for _, f := range r.File {
		size += f.UncompressedSize64
		prefix, _, _ := strings.Cut(f.Name, "@")
		module = prefix
		if !strings.HasSuffix(f.Name, ".go") {
			continue
		}
		imports, err := importsOf(f)
		if err != nil {
			return "", fmt.Errorf("%s: %v", f.Name, err)
		}
		for _, imp := range imports {
			if isForeignInternal(module, imp) {
				foreign = append(foreign, f.Name+" imports "+imp)
			}
		}
	}
	kib := int((size + 1023) / 1024)
	switch {
	case len(foreign) > 0:
		return "", fmt.Errorf("imports another module's internal packages, which a user cannot build:\n\t%s", strings.Join(foreign, "\n\t"))
	case kib > limitKiB:
		return "", fmt.Errorf("%s holds %d KiB uncompressed, over its stated %d KiB: what grew does not belong in a published module", module, kib, limitKiB)
	}
	return fmt.Sprintf("%s: %d KiB uncompressed (limit %d), %d files, no foreign internal/ import", module, kib, limitKiB, len(r.File)), nil
}

// importsOf returns the import paths of one Go file of the zip.
func importsOf(f *zip.File) ([]string, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	src, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	ast, err := parser.ParseFile(token.NewFileSet(), f.Name, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, spec := range ast.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		paths = append(paths, p)
	}
	return paths, nil
}

// isForeignInternal reports whether imp is an internal package of another
// module: one whose internal element's parent lies outside module's tree.
// (The go command's rule: a path with an element "internal" is importable
// only from the tree rooted at that element's parent; within the module,
// the compiler has checked it already.)
func isForeignInternal(module, imp string) bool {
	elems := strings.Split(imp, "/")
	for i, e := range elems {
		if e != "internal" {
			continue
		}
		parent := strings.Join(elems[:i], "/")
		return !(parent == module || strings.HasPrefix(parent, module+"/"))
	}
	return false
}

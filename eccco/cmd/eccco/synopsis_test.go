package main

import (
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxSynopsis bounds a package's synopsis, the first sentence of its doc, which go doc, pkg.go.dev and
// go list print as the package's one line.
const maxSynopsis = 100

// Every package of the module has a synopsis of at most maxSynopsis characters (issue 52: three
// internal packages' ran to 203).
func TestPackageSynopses(t *testing.T) {
	root := filepath.Join("..", "..") // eccco/
	var pkg doc.Package
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		for name, p := range pkgs {
			text := ""
			for _, f := range p.Files {
				if f.Doc != nil {
					text = f.Doc.Text()
				}
			}
			n++
			s := pkg.Synopsis(text)
			if s == "" {
				t.Errorf("%s (package %s) has no package doc", path, name)
			} else if l := utf8.RuneCountInString(s); l > maxSynopsis {
				t.Errorf("%s: synopsis of %d characters, want at most %d: %q", path, l, maxSynopsis, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("checked %d packages; the walk of %s missed some", n, root)
	}
}

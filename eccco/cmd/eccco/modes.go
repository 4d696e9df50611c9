package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/internal/outdir"
	"github.com/eccco-go/eccco-go/eccco/report"
)

// runModes sets benchmark results side by side (e.g. the paper's equations and the authors' code) and
// says in which of them ECCCo's claims hold.
func runModes(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("modes", "modes --in DIR,DIR[,…] [--names A,B,…] [--published FILE|none] [--out FILE.md]", stderr)
	in := fs.String("in", "", "comma-separated benchmark directories, each holding results.csv")
	names := fs.String("names", "", "comma-separated names of the directories (default: the directories)")
	published := fs.String("published", "", "the paper's numbers, added as a column 'paper' (default paper/published-results.csv; none: leave out)")
	out := fs.String("out", "", "write the Markdown there too (a new file; an existing one only with --replace)")
	replace := fs.Bool("replace", false, "overwrite the --out file if it exists")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("modes: unexpected arguments %v", fs.Args())
	}
	dirs := splitList(*in)
	if len(dirs) < 2 {
		return fmt.Errorf("modes: --in needs at least two benchmark directories")
	}
	if *out != "" {
		if err := outdir.File(*out, *replace, "--out"); err != nil {
			return fmt.Errorf("modes: %w", err)
		}
	}
	if err := distinctDirs(dirs); err != nil {
		return fmt.Errorf("modes: %w", err)
	}
	labels := dirs
	if *names != "" {
		labels = splitList(*names)
	}
	pub := *published
	switch strings.ToLower(pub) {
	case "":
		pub = compare.DefaultPublished()
	case "none":
		pub = ""
	}
	mc, err := report.CompareResultDirs(labels, dirs, pub)
	if err != nil {
		return fmt.Errorf("modes: %w", err)
	}
	md := report.ModesMarkdown(mc)
	fmt.Fprint(stdout, md)
	if *out != "" {
		if err := atomicfile.WriteFile(*out, []byte(md), 0o644); err != nil {
			return fmt.Errorf("modes: %w", err)
		}
		fmt.Fprintf(stderr, "wrote %s\n", *out)
	}
	return nil
}

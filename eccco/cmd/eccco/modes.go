package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/report"
)

// runModes sets benchmark results side by side (e.g. the paper's equations and the authors' code) and
// says in which of them ECCCo's claims hold.
func runModes(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("modes", "modes --in DIR,DIR[,…] [--names A,B,…] [--published FILE|none] (the Markdown goes to standard output: > FILE.md keeps it)", stderr)
	in := fs.String("in", "", "comma-separated benchmark directories, each holding results.csv")
	names := fs.String("names", "", "comma-separated names of the directories (default: the directories)")
	published := fs.String("published", "", "the paper's numbers, added as a column 'paper' (default paper/published-results.csv; none: leave out)")
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
	return nil
}

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/report"
)

// runAgree compares two benchmarks counterfactual by counterfactual, e.g. the same protocol and models
// run on two backends.
func runAgree(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("agree", "agree --in DIR,DIR [--names A,B] [--tol T] (the Markdown goes to standard output: > FILE.md keeps it)", stderr)
	in := fs.String("in", "", "two benchmark directories (or results.csv files), e.g. the same protocol run on two backends")
	names := fs.String("names", "", "comma-separated names of the two (default: the paths)")
	tol := fs.Float64("tol", compare.DefaultAgreementTolerance, "values a and b agree when |a − b| ≤ tol · max(1, |a|, |b|)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("agree: unexpected arguments %v", fs.Args())
	}
	paths := splitList(*in)
	if len(paths) != 2 {
		return fmt.Errorf("agree: --in needs two benchmark directories, got %d", len(paths))
	}
	if !(*tol > 0) {
		return fmt.Errorf("agree: --tol %v must be positive", *tol)
	}
	if err := sameProtocol(paths[0], paths[1]); err != nil {
		return fmt.Errorf("agree: %w", err)
	}
	labels := paths
	if *names != "" {
		if labels = splitList(*names); len(labels) != 2 {
			return fmt.Errorf("agree: --names needs two names, got %d", len(labels))
		}
	}
	var rows [2][]benchmark.Row
	for i, p := range paths {
		r, err := benchmark.ReadResults(p)
		if err != nil {
			return fmt.Errorf("agree: %w", err)
		}
		rows[i] = r
	}
	ag := compare.Agree([2]string{labels[0], labels[1]}, rows[0], rows[1], *tol)
	if ag.Matched == 0 {
		return fmt.Errorf("agree: %s and %s have no counterfactual in common (same data sets, models, generators, runs?)", paths[0], paths[1])
	}
	md := report.AgreementMarkdown(ag)
	fmt.Fprint(stdout, md)
	return nil
}

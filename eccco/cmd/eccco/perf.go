package main

import (
	"context"
	"fmt"
	"github.com/eccco-go/eccco-go/eccco/internal/outdir"
	"io"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/report"
)

func runPerf(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("perf", "perf [--data all|NAME,...] [--models mlp,mlp-ensemble,jem,jem-ensemble,lenet] [--mode paper|authors-code] [flags]", stderr)
	datasets := fs.String("data", "all", "data sets: 'all' (every available one) or a comma-separated list")
	kinds := fs.String("models", "mlp,mlp-ensemble", "comma-separated models to score (mlp, mlp-ensemble, jem, jem-ensemble, lenet; lenet only on image sets); saved ones are reused, missing ones trained and saved")
	out := fs.String("out", filepath.Join("runs", "perf"), "directory for perf.csv, perf.md and perf.tex ('none' to skip)")
	replace := fs.Bool("replace", false, "write into an existing --out folder that eccco did not make (files of the same names are replaced)")
	strict := fs.Bool("strict", false, "exit with an error if a model is more than 0.03 below the paper's accuracy")
	skipMissing := fs.Bool("skip-missing", false, "skip listed data sets that are not available here instead of failing ('all' always skips them)")
	var ef expFlags
	ef.register(fs, experiment.SetTraining, experiment.SetSettings)
	ef.registerImageBackend(fs)
	ef.registerJobs(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("perf: unexpected arguments %v", fs.Args())
	}
	if *out != "none" {
		if err := outdir.Prepare(*out, *replace, "--out", "perf.csv"); err != nil {
			return fmt.Errorf("perf: %w", err)
		}
	}
	names, explicit, err := dataList(*datasets)
	if err != nil {
		return fmt.Errorf("perf: --data: %w", err)
	}
	kindList, err := kindList(*kinds)
	if err != nil {
		return fmt.Errorf("perf: --models: %w", err)
	}
	opts, err := ef.options(stderr)
	if err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	fmt.Fprintf(stderr, "backend: %s\n", opts.Backend.Description())

	lanes, err := ef.lanes(opts, names)
	if err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	for _, name := range names {
		if b := lanes.Backend(name); b != opts.Backend {
			fmt.Fprintf(stderr, "%s: backend %s\n", name, b.Description())
		}
	}
	if lanes.Jobs > 1 {
		fmt.Fprintf(stderr, "%d data sets at a time\n", min(lanes.Jobs, len(names)))
	}
	rows, skipped, err := benchmark.Performances(ctx, benchmark.PerformanceRequest{Datasets: names, Kinds: kindList, Options: opts,
		SkipMissing: !explicit || *skipMissing}, lanes)
	if err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	fmt.Fprintln(stdout, report.PerformanceMarkdown(rows))
	if len(skipped) > 0 {
		fmt.Fprintf(stdout, "Not available here (run 'eccco data fetch NAME'): %s\n", strings.Join(skipped, ", "))
	}
	if *out != "none" {
		if err := report.WritePerformance(*out, rows); err != nil {
			return fmt.Errorf("perf: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s, %s and %s\n", filepath.Join(*out, "perf.csv"), filepath.Join(*out, "perf.md"), filepath.Join(*out, "perf.tex"))
	}
	if *strict {
		if below := compare.BelowPaper(rows); len(below) > 0 {
			return fmt.Errorf("perf: accuracy below the paper's by more than %.2f: %s", compare.PerformanceTolerance, strings.Join(below, "; "))
		}
	}
	return nil
}

// dataList parses a --data value: 'all' (every data set; explicit false) or a list of known, distinct
// names.
func dataList(s string) (names []string, explicit bool, err error) {
	if strings.TrimSpace(s) == "all" {
		return data.Names(), false, nil
	}
	seen := map[string]bool{}
	for _, n := range splitList(s) {
		if _, err := data.Lookup(n); err != nil {
			return nil, true, err
		}
		if seen[n] {
			return nil, true, fmt.Errorf("%w: data set %s is listed twice", experiment.ErrInvalid, n)
		}
		seen[n] = true
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, true, fmt.Errorf("%w: no data set given", experiment.ErrInvalid)
	}
	return names, true, nil
}

// kindList parses a comma-separated list of distinct model kinds.
func kindList(s string) ([]models.Kind, error) {
	var out []models.Kind
	seen := map[models.Kind]bool{}
	for _, k := range splitList(s) {
		kind, err := models.ParseKind(k)
		if err != nil {
			return nil, err
		}
		if seen[kind] {
			return nil, fmt.Errorf("%w: model %s is listed twice", experiment.ErrInvalid, kind)
		}
		seen[kind] = true
		out = append(out, kind)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no model given", experiment.ErrInvalid)
	}
	return out, nil
}

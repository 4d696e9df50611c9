package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/eccco-go/eccco-go/eccco/internal/outdir"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/progress"
	"github.com/eccco-go/eccco-go/eccco/report"
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "bench --data D|all [--skip-missing] [--runs N] [--factuals N] [--models ...] [--generators ...] [--set k=v,...] [--out DIR] [--shard i/N] [--mode paper|authors-code]", stderr)
	var ef expFlags
	datasets := fs.String("data", "", "data sets: a comma-separated list, or 'all' (every available one)")
	runs := fs.Int("runs", 0, "runs per data set (0: the paper's, 50; 10 for images)")
	factuals := fs.Int("factuals", 0, "factuals per run (0: the paper's, 100)")
	kinds := fs.String("models", "", "comma-separated models (default: the paper's for the data set)")
	gens := fs.String("generators", "", "comma-separated generators, any case (default: the paper's for the data set: all ten, six for images)")
	out := fs.String("out", filepath.Join("runs", "bench"), "result directory (units/, results.csv, tables/)")
	shardFlag := fs.String("shard", "", "run only the i-th of N parts, e.g. 2/8 (then merge with --merge)")
	merge := fs.String("merge", "", "comma-separated shard output directories to merge into --out before collecting")
	skipMissing := fs.Bool("skip-missing", false, "skip listed data sets that are not available here instead of failing ('all' always skips them)")
	replace := fs.Bool("replace", false, "write into an existing --out folder that eccco did not make (files of the same names are replaced)")
	ef.register(fs, experiment.SetTraining, experiment.SetSampling, experiment.SetGenerator, experiment.SetSettings)
	ef.registerImageBackend(fs)
	ef.registerTabularBackend(fs)
	ef.registerJobs(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: unexpected arguments %v", fs.Args())
	}
	if *datasets == "" {
		return fmt.Errorf("bench: --data is required (a list or 'all')")
	}
	if err := nonNegative(map[string]int{"runs": *runs, "factuals": *factuals}); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := outdir.Prepare(*out, *replace, "--out", "units/*/experiment.json"); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	unlock, err := outdir.Lock(*out)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer unlock()
	shard, err := benchmark.ParseShard(*shardFlag)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	names, explicit, err := dataList(*datasets)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	plan := benchmark.PlanOptions{Datasets: names, SkipMissing: *skipMissing || !explicit,
		Runs: *runs, Factuals: *factuals}
	if *gens != "" {
		if plan.Generators, err = experiment.ParseGenerators(splitList(*gens)...); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	opts, err := ef.options(stderr)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	plan.Seed, plan.Mode, plan.Sampling = opts.Seed, opts.Mode, opts.Sampling
	plan.Overrides = ef.overrides.Generator
	if *kinds != "" {
		if plan.Models, err = kindList(*kinds); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	ps, skipped, err := benchmark.Plan(plan)
	for _, n := range skipped {
		fmt.Fprintf(stderr, "skipping %s: not available here (eccco data fetch %s)\n", n, n)
	}
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	r := &benchmark.Runner{Backend: opts.Backend, ModelsDir: ef.modelsDir,
		AuthorsModelsDir: ef.authorsModels, Set: opts.Set, Training: opts.Training, Out: *out,
		Log: stderr, Progress: stderr}
	if *merge != "" {
		n, err := r.MergeDirs(splitList(*merge)...)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		fmt.Fprintf(stdout, "merged %d unit files into %s\n", n, *out)
	}
	total := 0
	for _, p := range ps {
		total += len(shard.Select(p.Units()))
	}
	bar := progress.New(stderr, total, "bench", "units")
	r.OnUnit = func(_, _ int, u benchmark.Unit, skipped bool) {
		what := u.String()
		if skipped {
			what += " (already done)"
		}
		bar.Describe(what)
		bar.Add(1)
	}
	names = make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Dataset
	}
	lanes, err := ef.lanes(opts, names)
	if err != nil {
		bar.Finish()
		return fmt.Errorf("bench: %w", err)
	}
	for _, p := range ps {
		if b := lanes.Backend(p.Dataset); b != opts.Backend {
			fmt.Fprintf(stderr, "%s: backend %s\n", p.Dataset, b.Description())
		}
	}
	if lanes.Jobs > 1 {
		fmt.Fprintf(stderr, "%d data sets at a time\n", min(lanes.Jobs, len(ps)))
	}
	if err := r.RunAll(ctx, ps, shard, lanes); err != nil {
		bar.Finish()
		return err
	}
	bar.Finish()
	rows, err := r.Collect(ps...)
	if errors.Is(err, benchmark.ErrIncomplete) && shard.N > 1 {
		fmt.Fprintf(stdout, "shard %d/%d done (%d units); merge all shards with --merge to collect the results\n", shard.I, shard.N, total)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d counterfactuals)\n", filepath.Join(*out, "results.csv"), len(rows))
	var ts []benchmark.Timings
	for _, p := range ps {
		t, err := benchmark.ReadTimings(*out, p.Dataset)
		if err != nil {
			return err
		}
		if t.Units > 0 {
			ts = append(ts, t)
		}
	}
	if len(ts) > 0 {
		path := filepath.Join(*out, "timings.md")
		md, err := report.WriteTimings(path, ts, min(ef.jobs, len(ps)))
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "time by stage (%s):\n%s", path, md)
	}
	bounds, err := uncertaintyBounds(stderr, r, ps[0].Mode, ps[0].Seed, compare.BoundRuns(compare.Aggregate(rows)))
	if err != nil {
		return err
	}
	return writeTableSet(stdout, stderr, rows, filepath.Join(*out, "tables"), report.TableSetOptions{Bounds: bounds})
}

// uncertaintyBounds computes the calibration bounds of the comparison from the saved models, saying on
// stderr which models it could not read.
func uncertaintyBounds(stderr io.Writer, r *benchmark.Runner, mode experiment.Mode, seed uint64, runs map[benchmark.BoundKey]int) (benchmark.UncertaintyBounds, error) {
	bounds, notes, err := r.UncertaintyBounds(mode, seed, runs)
	for _, n := range notes {
		fmt.Fprintln(stderr, "tables: "+n)
	}
	if err != nil {
		return nil, fmt.Errorf("calibration bounds: %w", err)
	}
	return bounds, nil
}

// writeTableSet writes the tables and the comparison with the published numbers and says what it wrote.
func writeTableSet(stdout, stderr io.Writer, rows []benchmark.Row, outDir string, o report.TableSetOptions) error {
	ts, err := report.WriteTableSet(outDir, rows, o)
	if err != nil {
		return err
	}
	return saidTableSet(stdout, stderr, ts, outDir)
}

// tableSetOnly reports a directory that holds a table set (cells.csv) but no results.csv: what `tables`
// re-renders.
func tableSetOnly(dir string) bool {
	_, errResults := os.Stat(filepath.Join(dir, "results.csv"))
	_, errCells := os.Stat(filepath.Join(dir, "cells.csv"))
	return errors.Is(errResults, os.ErrNotExist) && errCells == nil
}

// saidTableSet says what writeTableSet or a re-render wrote.
func saidTableSet(stdout, stderr io.Writer, ts *report.TableSet, outDir string) error {
	fmt.Fprintf(stdout, "wrote the tables to %s\n", outDir)
	if ts.Comparison == nil {
		fmt.Fprintf(stderr, "no comparison with the paper: its numbers are not at %s (eccco tables --published FILE compares with another file)\n", ts.Published)
		return nil
	}
	fmt.Fprintf(stdout, "against the paper: %s (%s)\n", report.Headline(*ts.Comparison), filepath.Join(outDir, "comparison.md"))
	return nil
}

func runTables(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tables", "tables --in DIR [--out DIR] [--published FILE] [--keep-cells FILE] [--models-dir DIR [--mode M]]; a DIR with cells.csv and no results.csv (a committed table set, e.g. paper/results) is re-rendered from its cells into --out (default DIR itself), keeping its comparison's \"Results from:\" line", stderr)
	in := fs.String("in", filepath.Join("runs", "bench"), "benchmark directory holding results.csv, or a table set (cells.csv without results.csv) to re-render")
	out := fs.String("out", "", "directory for the tables (default IN/tables; IN for a table set)")
	published := fs.String("published", "", "the paper's numbers (default paper/published-results.csv)")
	keep := fs.String("keep-cells", "", "a cells.csv written earlier (e.g. paper/results/cells.csv): its data sets that results.csv lacks join the tables and the comparison")
	replace := fs.Bool("replace", false, "write into an existing --out folder that eccco did not make (files of the same names are replaced)")
	modelsDir := fs.String("models-dir", "", "saved models (as for bench): the comparison then bounds each model's Ω by its calibration and puts the uncertainty misses no search could avoid down to q̂ (never trains); without it the bounds bench wrote to IN/tables are kept")
	modeName := fs.String("mode", "", "the results' mode, for --models-dir (default: the one the manifests under --in record)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("tables: unexpected arguments %v", fs.Args())
	}
	prepare := func() error {
		if err := outdir.Prepare(*out, *replace, "--out", "cells.csv", "calibration.csv"); err != nil {
			return fmt.Errorf("tables: %w", err)
		}
		return nil
	}
	if tableSetOnly(*in) {
		// A committed table set (cells.csv without results.csv): re-render it from its cells.
		if *keep != "" || *modelsDir != "" {
			return fmt.Errorf("%w: tables: %s holds a table set without results.csv: it is re-rendered from its cells.csv and calibration bounds, without --keep-cells or --models-dir", experiment.ErrInvalid, *in)
		}
		if *out == "" {
			*out = *in
		}
		if err := prepare(); err != nil {
			return err
		}
		ts, err := report.RerenderTableSet(*in, *out, report.TableSetOptions{Published: *published})
		if err != nil {
			return fmt.Errorf("tables: %w", err)
		}
		return saidTableSet(stdout, stderr, ts, *out)
	}
	if *out == "" {
		*out = filepath.Join(*in, "tables")
	}
	if err := prepare(); err != nil {
		return err
	}
	rows, err := benchmark.ReadResults(*in)
	if err != nil {
		return fmt.Errorf("tables: %w (run 'eccco bench --out %s' first)", err, *in)
	}
	var o report.TableSetOptions
	o.Published = *published
	if *keep != "" {
		if o.Kept, err = report.ReadKept(*keep); err != nil {
			return fmt.Errorf("tables: --keep-cells: %w", err)
		}
	}
	if *modelsDir == "" {
		// The bounds that bench wrote beside these very results (their manifests fix the models) still hold.
		if o.Bounds, err = benchmark.ReadBounds(filepath.Join(*in, "tables", benchmark.BoundsFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("tables: %w", err)
		}
	} else {
		mode, err := tablesMode(*modeName, *in)
		if err != nil {
			return err
		}
		seed, err := tablesSeed(*in)
		if err != nil {
			return err
		}
		r := &benchmark.Runner{ModelsDir: *modelsDir, Out: *in}
		cells := compare.Aggregate(rows)
		if o.Kept != nil {
			cells = append(cells, o.Kept.Cells...)
		}
		if o.Bounds, err = uncertaintyBounds(stderr, r, mode, seed, compare.BoundRuns(cells)); err != nil {
			return fmt.Errorf("tables: %w", err)
		}
	}
	return writeTableSet(stdout, stderr, rows, *out, o)
}

// tablesSeed is the one seed that the manifests under in record (experiment.DefaultSeed where none does).
func tablesSeed(in string) (uint64, error) {
	ms, err := benchmark.ReadManifests(in)
	if err != nil {
		return 0, fmt.Errorf("tables: %w", err)
	}
	var seeds []uint64
	for _, m := range ms {
		if !slices.Contains(seeds, m.Seed) {
			seeds = append(seeds, m.Seed)
		}
	}
	switch len(seeds) {
	case 0:
		return experiment.DefaultSeed, nil
	case 1:
		return seeds[0], nil
	}
	slices.Sort(seeds)
	return 0, fmt.Errorf("%w: tables: --models-dir needs the results' seed; the manifests under %s record %v: tabulate each seed's results on its own", experiment.ErrInvalid, in, seeds)
}

// tablesMode is --mode, or else the one mode that the manifests under in record.
func tablesMode(name, in string) (experiment.Mode, error) {
	if name != "" {
		return modeValue(name)
	}
	modes, err := benchmark.ManifestModes(in)
	if err != nil {
		return "", fmt.Errorf("tables: %w", err)
	}
	if len(modes) != 1 {
		return "", fmt.Errorf("%w: tables: --models-dir needs the results' mode; the manifests under %s record %v: pass --mode", experiment.ErrInvalid, in, modes)
	}
	return modes[0], nil
}

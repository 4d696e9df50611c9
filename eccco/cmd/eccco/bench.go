package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/internal/progress"
	"github.com/eccco-go/eccco-go/eccco/models"
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "bench --data D|all [--skip-missing] [--runs N] [--factuals N] [--models ...] [--generators ...] [--set k=v,...] [--out DIR] [--shard i/N] [--mode paper|authors-code]", stderr)
	var ef expFlags
	datasets := fs.String("data", "", "data sets: a comma-separated list, or 'all' (every available one)")
	runs := fs.Int("runs", 0, "runs per data set (0: the paper's, 50; 10 for images)")
	factuals := fs.Int("factuals", 0, "factuals per run (0: the paper's, 100)")
	kinds := fs.String("models", "", "comma-separated models (default: the paper's for the data set)")
	gens := fs.String("generators", "", "comma-separated generators, any case (default: the paper's for the data set: all ten, six for images)")
	set := &ef.generatorSpec // --set's generator hyper-parameters: every listed generator is then named 'NAME [k=v …]'
	out := fs.String("out", filepath.Join("runs", "bench"), "result directory (units/, results.csv, tables/)")
	shardFlag := fs.String("shard", "", "run only the i-th of N parts, e.g. 2/8 (then merge with --merge)")
	merge := fs.String("merge", "", "comma-separated shard output directories to merge into --out before collecting")
	skipMissing := fs.Bool("skip-missing", false, "skip listed data sets that are not available here instead of failing ('all' always skips them)")
	published := fs.String("published", "", "the paper's numbers for the comparison (default paper/published-results.csv)")
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
	shard, err := benchmark.ParseShard(*shardFlag)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	names, explicit, err := dataList(*datasets)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if !explicit {
		*skipMissing = true
	}
	if *skipMissing {
		var present []string
		for _, n := range names {
			ok, err := data.Present(n, ef.dataDir)
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			if ok {
				present = append(present, n)
			} else {
				fmt.Fprintf(stderr, "skipping %s: not available here (eccco data fetch %s)\n", n, n)
			}
		}
		if len(present) == 0 {
			return fmt.Errorf("bench: none of %v is available here (eccco data fetch NAME)", names)
		}
		names = present
	}
	var genList []experiment.Generator // nil: each data set's paper generators (benchmark.PaperProtocol)
	if *gens != "" {
		if genList, err = experiment.ParseGenerators(splitList(*gens)...); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	opts, err := ef.options(stderr)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := benchSettings(ef.overrides); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	var kindSel []models.Kind
	if *kinds != "" {
		if kindSel, err = kindList(*kinds); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	var ps []benchmark.Protocol
	for _, name := range names {
		p, err := benchmark.PaperProtocol(name)
		if err != nil {
			return err
		}
		p.Seed, p.Mode, p.Sampling = opts.Seed, opts.Mode, opts.Sampling
		if genList != nil {
			p.Generators = genList
		}
		if *set != "" {
			if p.Generators, err = withOverrides(p.Generators, *set); err != nil {
				return fmt.Errorf("bench: %w", err)
			}
		}
		if *runs > 0 {
			p.Runs = *runs
		}
		if *factuals > 0 {
			p.Factuals = *factuals
		}
		if kindSel != nil {
			p.Models = kindSel
		}
		if err := p.Validate(); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		ps = append(ps, p)
	}
	r := &benchmark.Runner{Backend: opts.Backend, DataDir: ef.dataDir, ModelsDir: ef.modelsDir, OwnModels: ef.ownModels,
		AuthorsModelsDir: ef.authorsModels, Training: opts.Training, Out: *out,
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
	names = names[:0]
	for _, p := range ps {
		names = append(names, p.Dataset)
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
		md := benchmark.TimingsMarkdown(ts)
		path := filepath.Join(*out, "timings.md")
		head := "Benchmark wall time by stage (this shard's invocations; model training included in models):\n\n"
		if ef.jobs > 1 && len(ps) > 1 {
			head = fmt.Sprintf("Benchmark wall time by stage (this shard's invocations; model training included in models; %d data sets at a time, so each row is that data set's own wall time while it shared the machine, and the rows add up to more than the run took):\n\n", min(ef.jobs, len(ps)))
		}
		if err := atomicfile.WriteFile(path, []byte(head+md), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "time by stage (%s):\n%s", path, md)
	}
	bounds, err := uncertaintyBounds(stderr, r, ps[0].Mode, ps[0].Seed, benchmark.Aggregate(rows))
	if err != nil {
		return err
	}
	return writeTablesWith(stdout, stderr, rows, filepath.Join(*out, "tables"), benchmark.ReportOptions{Published: *published, Bounds: bounds})
}

// uncertaintyBounds computes the calibration bounds of the comparison from the saved models, saying on
// stderr which models it could not read.
func uncertaintyBounds(stderr io.Writer, r *benchmark.Runner, mode experiment.Mode, seed uint64, cells []benchmark.Cell) (benchmark.UncertaintyBounds, error) {
	bounds, notes, err := r.UncertaintyBounds(mode, seed, cells)
	for _, n := range notes {
		fmt.Fprintln(stderr, "tables: "+n)
	}
	if err != nil {
		return nil, fmt.Errorf("calibration bounds: %w", err)
	}
	return bounds, nil
}

// withOverrides applies "k=v,k=v" to every generator and renames it "NAME [k=v …]".
func withOverrides(gens []experiment.Generator, spec string) ([]experiment.Generator, error) {
	set := map[string]float64{}
	for _, kv := range splitList(spec) {
		k, v, ok := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%w: --set %q: want key=number", experiment.ErrInvalid, kv)
		}
		set[strings.TrimSpace(k)] = f
	}
	out := make([]experiment.Generator, len(gens))
	for i, g := range gens {
		g.Paper, g.Set = g.Name, set
		g.Name = fmt.Sprintf("%s [%s]", g.Name, strings.Join(splitList(spec), " "))
		out[i] = g
	}
	return out, experiment.CheckGenerators(out)
}

// writeTables writes the tables and the comparison with the published numbers and says what it wrote.
func writeTables(stdout, stderr io.Writer, rows []benchmark.Row, outDir, published string) error {
	return writeTablesWith(stdout, stderr, rows, outDir, benchmark.ReportOptions{Published: published})
}

func writeTablesWith(stdout, stderr io.Writer, rows []benchmark.Row, outDir string, o benchmark.ReportOptions) error {
	rep, err := benchmark.WriteReportWith(outDir, rows, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the tables to %s\n", outDir)
	if rep.Comparison == nil {
		fmt.Fprintf(stderr, "no comparison with the paper: its numbers are not at %s (pass --published FILE)\n", rep.Published)
		return nil
	}
	fmt.Fprintf(stdout, "against the paper: %s (%s)\n", rep.Comparison.Headline(), filepath.Join(outDir, "comparison.md"))
	return nil
}

func runTables(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tables", "tables --in DIR [--out DIR] [--published FILE] [--keep-cells FILE] [--models-dir DIR [--mode M] [--seed N] [--data-dir DIR]]", stderr)
	in := fs.String("in", filepath.Join("runs", "bench"), "benchmark directory holding results.csv")
	out := fs.String("out", "", "directory for the tables (default IN/tables)")
	published := fs.String("published", "", "the paper's numbers (default paper/published-results.csv)")
	keep := fs.String("keep-cells", "", "a cells.csv written earlier (e.g. paper/results/cells.csv): its data sets that results.csv lacks join the tables and the comparison")
	modelsDir := fs.String("models-dir", "", "saved models (as for bench): the comparison then bounds each model's Ω by its calibration and puts the uncertainty misses no search could avoid down to q̂ (never trains); without it the bounds bench wrote to IN/tables are kept")
	dataDir := new(string)
	modeName := fs.String("mode", "", "the results' mode, for --models-dir (default: the one the manifests under --in record)")
	seed := fs.Uint64("seed", experiment.DefaultSeed, "the results' seed, for --models-dir")
	registerDataDir(fs, dataDir)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(*in, "tables")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("tables: unexpected arguments %v", fs.Args())
	}
	rows, err := benchmark.ReadCSV(filepath.Join(*in, "results.csv"))
	if err != nil {
		return fmt.Errorf("tables: %w (run 'eccco bench --out %s' first)", err, *in)
	}
	var kept []benchmark.Cell
	keptFrom := *keep
	if *keep != "" {
		if kept, err = benchmark.ReadCells(*keep); err != nil {
			return fmt.Errorf("tables: --keep-cells: %w", err)
		}
		keptFrom = keptProvenance(*keep)
	}
	o := benchmark.ReportOptions{Kept: kept, KeptFrom: keptFrom, Published: *published}
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
		r := &benchmark.Runner{DataDir: *dataDir, ModelsDir: *modelsDir, Out: *in}
		if o.Bounds, err = uncertaintyBounds(stderr, r, mode, *seed, append(benchmark.Aggregate(rows), kept...)); err != nil {
			return fmt.Errorf("tables: %w", err)
		}
	}
	if *keep != "" {
		// The kept data sets keep their calibration bounds too, unless --models-dir gave fresh ones.
		keptBounds, err := benchmark.ReadBounds(filepath.Join(filepath.Dir(*keep), benchmark.BoundsFile))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("tables: --keep-cells: %w", err)
		}
		fresh := map[string]bool{}
		for _, r := range rows {
			fresh[r.Dataset] = true
		}
		for k, b := range keptBounds {
			if _, ok := o.Bounds[k]; !ok && !fresh[k.Dataset] {
				if o.Bounds == nil {
					o.Bounds = benchmark.UncertaintyBounds{}
				}
				o.Bounds[k] = b
			}
		}
	}
	return writeTablesWith(stdout, stderr, rows, *out, o)
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

// keptQuote joins kept cells' file to the provenance its comparison quoted.
const keptQuote = ", whose comparison said: "

// keptProvenance names kept cells by their file and, when a comparison.md lies beside it, by what that
// comparison says they were computed from (its "Results from:" line), so that the provenance survives
// when the new tables replace that comparison.
func keptProvenance(cells string) string {
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(cells), "comparison.md"))
	if err != nil {
		return cells
	}
	for line := range strings.SplitSeq(string(raw), "\n") {
		if from, ok := strings.CutPrefix(line, "Results from: "); ok {
			// Cells kept more than once: the innermost quote says where the kept cells were computed.
			if i := strings.LastIndex(from, keptQuote); i >= 0 {
				from = from[i+len(keptQuote):]
			}
			return fmt.Sprintf("%s%s%s", cells, keptQuote, strings.TrimSpace(from))
		}
	}
	return cells
}

// benchSettings refuses settings the benchmark runner does not pass on: of the mode's settings, bench
// reads authors-models (and authors-models-dir) only.
func benchSettings(ov experiment.Overrides) error {
	for _, k := range slices.Sorted(maps.Keys(ov.Settings)) {
		if k != "authors-models" {
			return fmt.Errorf("%w: --set %s: bench reads only authors-models and authors-models-dir of the mode's settings (explain, perf and figures read them all)", experiment.ErrInvalid, k)
		}
	}
	return nil
}

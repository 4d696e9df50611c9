package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/progress"
	"github.com/eccco-go/eccco-go/eccco/models"
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "bench --data D|all [--skip-missing] [--runs N] [--factuals N] [--models ...] [--generators ...] [--out DIR] [--shard i/N] [--compat]", stderr)
	datasets := fs.String("data", "", "data sets: a comma-separated list, or 'all' (every available one)")
	runs := fs.Int("runs", 0, "runs per data set (0: the paper's, 50; 10 for images)")
	factuals := fs.Int("factuals", 0, "factuals per run (0: the paper's, 100)")
	kinds := fs.String("models", "", "comma-separated models (default: the paper's for the data set)")
	gens := fs.String("generators", "", "comma-separated generators (default: all of the paper's)")
	out := fs.String("out", filepath.Join("runs", "bench"), "result directory (units/, results.csv, tables/)")
	modelsDir := fs.String("models-dir", filepath.Join("runs", "models"), "trained models DIR/DATA/MODEL; missing ones are trained and saved")
	shardFlag := fs.String("shard", "", "run only the i-th of N parts, e.g. 2/8 (then merge with --merge)")
	merge := fs.String("merge", "", "comma-separated shard output directories to merge into --out before collecting")
	compat := fs.Bool("compat", false, "paper-code compatibility mode: metrics, generators and JEM training as the authors' code did (go doc ./eccco/benchmark Experiment)")
	seed := fs.Uint64("seed", 42, "seed of everything random")
	dir := fs.String("dir", "", "data directory (default $ECCCO_DATA_DIR or data/cache in the repository)")
	skipMissing := fs.Bool("skip-missing", false, "skip listed data sets that are not available here instead of failing ('all' always skips them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *datasets == "" {
		return fmt.Errorf("bench: --data is required (a list or 'all')")
	}
	shard, err := benchmark.ParseShard(*shardFlag)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	names := splitList(*datasets)
	if *datasets == "all" {
		names, *skipMissing = data.Names(), true
	}
	if *skipMissing {
		var present []string
		for _, n := range names {
			ok, err := data.Present(n, *dir)
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
	var exps []benchmark.Experiment
	for _, name := range names {
		e, err := benchmark.PaperExperiment(name)
		if err != nil {
			return err
		}
		e.Seed, e.Compat = *seed, *compat
		if *runs > 0 {
			e.Runs = *runs
		}
		if *factuals > 0 {
			e.Factuals = *factuals
		}
		if *kinds != "" {
			e.Models = nil
			for _, k := range splitList(*kinds) {
				kind, err := models.ParseKind(k)
				if err != nil {
					return err
				}
				e.Models = append(e.Models, kind)
			}
		}
		if *gens != "" {
			e.Generators = splitList(*gens)
		}
		if err := e.Validate(); err != nil {
			return err
		}
		exps = append(exps, e)
	}
	b, err := backend.New()
	if err != nil {
		return err
	}
	r := &benchmark.Runner{Backend: b, DataDir: *dir, ModelsDir: *modelsDir, Out: *out, Log: nil}
	if *merge != "" {
		n, err := r.MergeDirs(splitList(*merge)...)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merged %d unit files into %s\n", n, *out)
	}
	total := 0
	for _, e := range exps {
		total += len(shard.Select(e.Units()))
	}
	bar := progress.New(stderr, total, "bench", "units")
	done := 0
	r.OnUnit = func(_, _ int, u benchmark.Unit, skipped bool) {
		done++
		what := u.String()
		if skipped {
			what += " (already done)"
		}
		bar.Describe(what)
		bar.Add(1)
	}
	for _, e := range exps {
		if err := r.Run(ctx, e, shard); err != nil {
			bar.Finish()
			return err
		}
	}
	bar.Finish()
	rows, err := r.Collect(exps...)
	if errors.Is(err, benchmark.ErrIncomplete) && shard.N > 1 {
		fmt.Fprintf(stdout, "shard %d/%d done (%d units); merge all shards with --merge to collect the results\n", shard.I, shard.N, total)
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d counterfactuals)\n", filepath.Join(*out, "results.csv"), len(rows))
	return writeTables(stdout, rows, filepath.Join(*out, "tables"), "")
}

// writeTables aggregates rows into the paper's tables and, when the published numbers are found, the
// comparison report.
func writeTables(stdout io.Writer, rows []benchmark.Row, outDir, published string) error {
	cells := benchmark.Aggregate(rows)
	if err := benchmark.WriteTables(outDir, cells); err != nil {
		return err
	}
	if err := benchmark.WriteParameterTables(outDir); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the tables to %s\n", outDir)
	if published == "" {
		published = filepath.Join("paper", "published-results.csv")
	}
	pub, err := benchmark.ReadPublished(published)
	if err != nil {
		if os.IsNotExist(errors.Unwrap(err)) {
			return nil
		}
		return err
	}
	cmp := benchmark.Compare(cells, pub)
	if err := os.WriteFile(filepath.Join(outDir, "comparison.md"), []byte(cmp.Markdown()), 0o644); err != nil {
		return fmt.Errorf("writing the comparison: %w", err)
	}
	fmt.Fprintf(stdout, "against the paper: %s (%s)\n", cmp.Headline(), filepath.Join(outDir, "comparison.md"))
	return nil
}

func runTables(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tables", "tables --in DIR [--out DIR] [--published FILE]", stderr)
	in := fs.String("in", filepath.Join("runs", "bench"), "benchmark directory holding results.csv")
	out := fs.String("out", "", "directory for the tables (default IN/tables)")
	published := fs.String("published", "", "the paper's numbers (default paper/published-results.csv)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(*in, "tables")
	}
	rows, err := benchmark.ReadCSV(filepath.Join(*in, "results.csv"))
	if err != nil {
		return err
	}
	return writeTables(stdout, rows, *out, *published)
}

package benchmark

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// smallExperiment is a quick protocol on the linearly separable data: two models, three generators, two
// runs of ten factuals.
func smallExperiment() Protocol {
	gens, err := experiment.ParseGenerators("Wachter", "ECCCo", "ECCCo-L1")
	if err != nil {
		panic(err)
	}
	return Protocol{Dataset: "linearly-separable", Models: []models.Kind{models.KindMLP, models.KindJEM},
		Generators: gens, Runs: 2, Factuals: 10, Seed: 7}
}

func newRunner(t *testing.T, out, modelsDir string) *Runner {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Backend: b, ModelsDir: modelsDir, Out: out}
}

// An interrupted benchmark, run again, ends with the same bytes as an uninterrupted one; so do two runs
// with the same seed; and shards merged give the same results too.
func TestResumeShardAndDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two small models")
	}
	dir := t.TempDir()
	modelsDir := filepath.Join(dir, "models")
	e := smallExperiment()
	ctx := context.Background()

	// Uninterrupted.
	full := newRunner(t, filepath.Join(dir, "full"), modelsDir)
	if err := full.Run(ctx, e, Shard{1, 1}); err != nil {
		t.Fatal(err)
	}
	want := collectBytes(t, full, e)

	// Interrupted after 5 units (the context is cancelled from the progress callback), then resumed.
	part := newRunner(t, filepath.Join(dir, "resumed"), modelsDir)
	cctx, cancel := context.WithCancel(ctx)
	part.OnUnit = func(done, _ int, _ Unit, _ bool) {
		if done == 5 {
			cancel()
		}
	}
	if err := part.Run(cctx, e, Shard{1, 1}); err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: err = %v, want context.Canceled", err)
	}
	if _, err := part.Collect(e); !errors.Is(err, ErrIncomplete) {
		t.Fatalf("collect after the interruption: err = %v, want ErrIncomplete", err)
	}
	skipped := 0
	part.OnUnit = func(_, _ int, _ Unit, s bool) {
		if s {
			skipped++
		}
	}
	if err := part.Run(ctx, e, Shard{1, 1}); err != nil {
		t.Fatal(err)
	}
	if skipped != 5 {
		t.Errorf("the resumed run skipped %d units, want the 5 already written", skipped)
	}
	if got := collectBytes(t, part, e); !bytes.Equal(got, want) {
		t.Errorf("resumed results differ from the uninterrupted ones")
	}
	// Resuming into the directory with other settings is refused before any unit is computed.
	for _, other := range []Protocol{func() Protocol { o := e; o.Seed++; return o }(), func() Protocol { o := e; o.Mode = experiment.AuthorsCode; return o }()} {
		part.OnUnit = func(_, _ int, u Unit, _ bool) { t.Errorf("unit %s run under a foreign manifest", u) }
		if err := part.Run(ctx, other, Shard{1, 1}); !errors.Is(err, ErrManifest) {
			t.Errorf("run with seed %d, mode %s into the same directory: err = %v, want ErrManifest", other.Seed, other.Mode, err)
		}
	}

	// Two shards on separate directories, merged.
	var shardDirs []string
	for i := 1; i <= 2; i++ {
		d := filepath.Join(dir, "shard", string(rune('0'+i)))
		if err := newRunner(t, d, modelsDir).Run(ctx, e, Shard{i, 2}); err != nil {
			t.Fatal(err)
		}
		shardDirs = append(shardDirs, d)
	}
	merged := newRunner(t, filepath.Join(dir, "merged"), modelsDir)
	if _, err := merged.MergeDirs(shardDirs...); err != nil {
		t.Fatal(err)
	}
	if got := collectBytes(t, merged, e); !bytes.Equal(got, want) {
		t.Errorf("merged shard results differ from the single run")
	}
	rows, err := ReadCSV(filepath.Join(full.Out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(e.Units())*e.Factuals {
		t.Errorf("%d rows, want %d", len(rows), len(e.Units())*e.Factuals)
	}
}

func collectBytes(t *testing.T, r *Runner, e ...Protocol) []byte {
	t.Helper()
	if _, err := r.Collect(e...); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(r.Out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The same seed gives the same factuals and targets in `eccco explain` (the experiment layer's Run) as in
// the benchmark, and, for the same number of factuals, the same counterfactuals and metrics.
func TestExplainMatchesBenchmark(t *testing.T) {
	dir := t.TempDir()
	gens, err := experiment.ParseGenerators("Wachter", "ECCCo")
	if err != nil {
		t.Fatal(err)
	}
	p := Protocol{Dataset: "moons", Models: []models.Kind{models.KindMLP}, Generators: gens, Runs: 2, Factuals: 6, Seed: 11}
	r := newRunner(t, filepath.Join(dir, "out"), filepath.Join(dir, "models"))
	r.Training = experiment.Training{Epochs: 3}
	ctx := context.Background()
	if err := r.Run(ctx, p, Shard{1, 1}); err != nil {
		t.Fatal(err)
	}
	ex, err := r.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= p.Runs; run++ {
		for _, g := range gens {
			rows, err := ReadCSV(r.UnitPath(Unit{Dataset: p.Dataset, Model: models.KindMLP, Generator: g.Name, Run: run}))
			if err != nil {
				t.Fatal(err)
			}
			prep, err := ex.Run(ctx, experiment.RunRequest{Kind: models.KindMLP, Run: run, N: p.Factuals, Generators: gens})
			if err != nil {
				t.Fatal(err)
			}
			x, err := prep.Explain(ctx, g)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := ReadCounterfactuals(r.CounterfactualsPath(Unit{Dataset: p.Dataset, Model: models.KindMLP, Generator: g.Name, Run: run}))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cf.X, x.Result.X) || !slices.Equal(cf.Factuals, x.Factuals.Rows) || !slices.Equal(cf.Target, x.Factuals.Targets) {
				t.Errorf("run %d %s: the unit's counterfactuals %v (factuals %v) differ from explain's %v", run, g.Name, cf.X, cf.Factuals, x.Result.X)
			}
			for i, row := range rows {
				if row.Factual != x.Factuals.Rows[i] || row.Target != x.Factuals.Targets[i] || row.Scores != x.Scores[i] {
					t.Errorf("run %d %s row %d: bench %+v, explain factual %d target %d scores %+v", run, g.Name, i, row, x.Factuals.Rows[i], x.Factuals.Targets[i], x.Scores[i])
				}
			}
			few, err := ex.Factuals(ctx, models.KindMLP, run, 3)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if few.Rows[i] != rows[i].Factual || few.Targets[i] != rows[i].Target {
					t.Errorf("run %d: explain --n 3 factual %d = row %d → %d, bench row %d → %d", run, i, few.Rows[i], few.Targets[i], rows[i].Factual, rows[i].Target)
				}
			}
		}
	}
}

// Adding to a result directory units computed with other model weights, or under a generator name whose
// definition changed, is refused (ErrManifest) before any unit is written; merging such shards too.
func TestManifestRefusesOtherModelsAndGenerators(t *testing.T) {
	dir := t.TempDir()
	gens, err := experiment.ParseGenerators("Wachter")
	if err != nil {
		t.Fatal(err)
	}
	p := Protocol{Dataset: "circles", Models: []models.Kind{models.KindMLP}, Generators: gens, Runs: 2, Factuals: 4, Seed: 3}
	ctx := context.Background()
	a := newRunner(t, filepath.Join(dir, "out"), filepath.Join(dir, "models-a"))
	a.Training = experiment.Training{Epochs: 2}
	if err := a.Run(ctx, p, Shard{1, 2}); err != nil {
		t.Fatal(err)
	}
	// The same protocol with models trained otherwise (3 epochs: other weights) into the same directory.
	b := newRunner(t, a.Out, filepath.Join(dir, "models-b"))
	b.Training = experiment.Training{Epochs: 3}
	b.OnUnit = func(_, _ int, u Unit, skipped bool) {
		if !skipped {
			t.Errorf("unit %s computed with other weights", u)
		}
	}
	if err := b.Run(ctx, p, Shard{2, 2}); !errors.Is(err, ErrManifest) {
		t.Errorf("other weights: err = %v, want ErrManifest", err)
	}
	// A generator name with another definition.
	q := p
	q.Generators = []experiment.Generator{{Name: "Wachter", Paper: "Wachter", Set: experiment.Tuning{Cost: new(1.0)}}}
	if err := a.Run(ctx, q, Shard{2, 2}); !errors.Is(err, ErrManifest) {
		t.Errorf("redefined generator: err = %v, want ErrManifest", err)
	}
	// Unfaithfulness sampled per counterfactual into units sampled per run.
	q = p
	q.Sampling = experiment.PerCounterfactual
	if err := a.Run(ctx, q, Shard{2, 2}); !errors.Is(err, ErrManifest) {
		t.Errorf("other sampling: err = %v, want ErrManifest", err)
	}
	// Merging a shard computed with other weights.
	c := newRunner(t, filepath.Join(dir, "other"), filepath.Join(dir, "models-b"))
	c.Training = experiment.Training{Epochs: 3}
	if err := c.Run(ctx, p, Shard{2, 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.MergeDirs(c.Out); !errors.Is(err, ErrManifest) {
		t.Errorf("merging other weights: err = %v, want ErrManifest", err)
	}
}

func TestManifestRecordsBackends(t *testing.T) {
	dir := t.TempDir()
	gens, err := experiment.ParseGenerators("Wachter")
	if err != nil {
		t.Fatal(err)
	}
	p := Protocol{Dataset: "circles", Models: []models.Kind{models.KindMLP}, Generators: gens, Runs: 1, Factuals: 2, Seed: 3}
	r := newRunner(t, filepath.Join(dir, "out"), filepath.Join(dir, "models"))
	r.Training = experiment.Training{Epochs: 1}
	if err := r.Run(context.Background(), p, Shard{1, 1}); err != nil {
		t.Fatal(err)
	}
	m, err := readManifest(r.ManifestPath("circles"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{r.Backend.Name()}; !slices.Equal(m.Backends, want) {
		t.Errorf("manifest backends %v, want %v", m.Backends, want)
	}
	if ms, err := ReadManifests(r.Out); err != nil || len(ms) != 1 || ms[0].Dataset != "circles" || ms[0].Mode != "paper" {
		t.Errorf("ReadManifests = %+v, %v; want the circles manifest, mode paper", ms, err)
	}
	// Units of another backend join the same directory; the list grows, sorted, once per backend.
	o := m
	o.Backends = []string{"xla"}
	for range 2 {
		if _, err := m.merge(o, dir); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{r.Backend.Name(), "xla"}
	slices.Sort(want)
	if !slices.Equal(m.Backends, want) {
		t.Errorf("merged backends %v, want %v", m.Backends, want)
	}
}

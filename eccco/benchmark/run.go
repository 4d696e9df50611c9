package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
	"github.com/gomlx/compute"
)

// Runner runs experiments unit by unit, writing each finished unit atomically under Out, so that an
// interrupted run resumes where it stopped and ends with the same bytes as an uninterrupted one.
type Runner struct {
	Backend compute.Backend
	// DataDir is the data directory ("" = data.DefaultDir()).
	DataDir string
	// ModelsDir holds trained models as DIR/DATA/MODEL (and DIR/DATA/vae); missing ones are trained with
	// the paper's settings and the experiment's seed, and saved there. "" = runs/models.
	ModelsDir string
	// Out is the result directory: Out/units/… per unit, Out/results.csv after Collect.
	Out string
	// Log receives one line per unit (nil: silent); OnUnit, if set, is called after every unit.
	Log    io.Writer
	OnUnit func(done, total int, u Unit, skipped bool)
}

// UnitPath is where a unit's rows are written.
func (r *Runner) UnitPath(u Unit) string {
	return filepath.Join(r.Out, "units", u.Dataset, string(u.Model), slug(u.Generator), fmt.Sprintf("run-%03d.csv", u.Run))
}

func slug(name string) string {
	s := strings.ToLower(name)
	s = strings.NewReplacer(" (", "-", ")", "", " ", "-", "+", "-plus").Replace(s)
	return s
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format+"\n", args...)
	}
}

// Run runs the experiment's units of one shard, skipping units already written.
func (r *Runner) Run(ctx context.Context, e Experiment, shard Shard) error {
	if err := e.Validate(); err != nil {
		return err
	}
	if r.Backend == nil || r.Out == "" {
		return fmt.Errorf("benchmark: the runner needs a backend and an output directory")
	}
	split, err := data.Load(e.Dataset, data.Options{Dir: r.DataDir, Seed: e.Seed})
	if err != nil {
		return err
	}
	if err := r.claim(e); err != nil {
		return err
	}
	st := &state{r: r, e: e, split: split, models: map[models.Kind]*models.Model{}}
	units := shard.Select(e.Units())
	for i, u := range units {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("benchmark interrupted before %s: %w", u, err)
		}
		path := r.UnitPath(u)
		if _, err := os.Stat(path); err == nil {
			if r.OnUnit != nil {
				r.OnUnit(i+1, len(units), u, true)
			}
			continue
		}
		start := time.Now()
		rows, err := st.unit(ctx, u)
		if err != nil {
			return fmt.Errorf("benchmark %s: %w", u, err)
		}
		if err := WriteCSVAtomic(path, rows); err != nil {
			return err
		}
		r.logf("%s: %d counterfactuals in %.1f s", u, len(rows), time.Since(start).Seconds())
		if r.OnUnit != nil {
			r.OnUnit(i+1, len(units), u, false)
		}
	}
	return nil
}

// evaluator returns the metrics of a generator's counterfactuals: the group's, or in compatibility mode
// for a generator that pulls towards SGLD samples (ECCCo-L1), one that measures unfaithfulness against
// those very samples, as the authors' code did (its distance_from_energy kept the sampler in the
// explanation, ce.params[:energy_sampler], and the metric reused it).
func (g *group) evaluator(gen *counterfactual.Generator, compat bool) *metrics.Evaluator {
	if !compat || g.in.Samples == nil || !usesSamples(gen) {
		return g.eval
	}
	own := *g.eval
	own.Samples = g.in.Samples
	return &own
}

// usesSamples reports whether a generator's objective pulls towards SGLD samples (ECCCo-L1 and its no-CP
// ablation).
func usesSamples(g *counterfactual.Generator) bool {
	for _, p := range g.Penalties {
		if p.Name == "samples" && p.Weight != 0 {
			return true
		}
	}
	return false
}

// ProtocolVersion is the version of the code that produces unit results. It is stored with the units and
// raised whenever a change alters what a unit holds, so that a benchmark never resumes into (or merges)
// units computed under other rules. 2: paper-code generators (MAD-weighted Wachter cost, gated Ω with the
// empty-set rule). 3: the MAD weights add D·1e-5 as the authors' code did. 4: in compat mode ECCCo-L1's
// unfaithfulness is measured against the samples its penalty used. 5: in compat mode the samples (metric
// and ECCCo-L1) come from the authors' sampler (energy.PaperCodeClassOptions) and ECCCo-L1's penalty
// divides by the number of chains. 6: that sampler starts from the prior of mean ± 3 sd, not the data's
// overall range.
const ProtocolVersion = 6

// Manifest records what the units of one data set in a result directory were computed with:
// Out/units/DATASET/experiment.json. Models, generators and runs may grow between resumptions (every unit
// stands alone); the fields here may not.
type Manifest struct {
	Protocol int    `json:"protocol"`
	Dataset  string `json:"dataset"`
	Seed     uint64 `json:"seed"`
	Factuals int    `json:"factuals"`
	Compat   bool   `json:"compat"`
}

// ManifestPath is where the manifest of a data set's units is written.
func (r *Runner) ManifestPath(dataset string) string {
	return filepath.Join(r.Out, "units", dataset, "experiment.json")
}

// claim writes the experiment's manifest, or checks that the one already there matches it.
func (r *Runner) claim(e Experiment) error {
	want := Manifest{Protocol: ProtocolVersion, Dataset: e.Dataset, Seed: e.Seed, Factuals: e.Factuals, Compat: e.Compat}
	content, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		return err
	}
	content = append(content, '\n')
	path := r.ManifestPath(e.Dataset)
	old, err := os.ReadFile(path)
	switch {
	case err == nil:
		var have Manifest
		if err := json.Unmarshal(old, &have); err != nil {
			return fmt.Errorf("benchmark: reading %s: %w", path, err)
		}
		if have != want {
			return fmt.Errorf("benchmark %s: %s holds units computed with %+v, this run would use %+v; choose another --out or remove that directory", e.Dataset, filepath.Dir(path), have, want)
		}
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("benchmark: %w", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) > 0 {
		return fmt.Errorf("benchmark %s: %s holds units without a manifest (an older eccco); choose another --out or remove that directory", e.Dataset, filepath.Dir(path))
	}
	return atomicfile.WriteFile(path, content, 0o644)
}

// state caches what units of one experiment share: models, the VAE, the PCA, and the preparation of the
// current (model, run) group.
type state struct {
	r      *Runner
	e      Experiment
	split  *data.Split
	models map[models.Kind]*models.Model
	vae    *vae.VAE
	pca    *counterfactual.PCA

	groupKey string
	group    *group
}

type group struct {
	rows    []int // test rows
	x       []float32
	targets []int
	in      counterfactual.Ingredients
	eval    *metrics.Evaluator
}

func (st *state) modelsDir() string {
	if st.r.ModelsDir == "" {
		return filepath.Join("runs", "models")
	}
	return st.r.ModelsDir
}

func (st *state) model(ctx context.Context, kind models.Kind) (*models.Model, error) {
	if m, ok := st.models[kind]; ok {
		return m, nil
	}
	dir := filepath.Join(st.modelsDir(), st.e.Dataset, ModelDirName(kind, st.e.Compat))
	m, err := models.Load(st.r.Backend, dir)
	if err != nil {
		st.r.logf("%s %s: no saved model in %s (%v); training one with the paper's settings", st.e.Dataset, kind, dir, err)
		if m, err = trainPaper(ctx, st.r.Backend, st.e.Dataset, kind, st.split, st.e.Seed, st.e.Compat); err != nil {
			return nil, err
		}
		if err := m.Save(dir); err != nil {
			return nil, err
		}
	}
	st.models[kind] = m
	return m, nil
}

// ModelDirName is the directory name of a model kind under ModelsDir/DATA: the kind itself, or for JEMs
// in compatibility mode KIND-paper-code (JEMs trained as the authors' experiments did, see
// energy.JEMOptions.WithPaperCode).
func ModelDirName(kind models.Kind, compat bool) string {
	if compat && (kind == models.KindJEM || kind == models.KindJEMEnsemble) {
		return string(kind) + "-paper-code"
	}
	return string(kind)
}

func trainPaper(ctx context.Context, b compute.Backend, dataset string, kind models.Kind, split *data.Split, seed uint64, compat bool) (*models.Model, error) {
	spec, err := models.SpecFor(kind, dataset, split.Train.D(), split.Train.K())
	if err != nil {
		return nil, err
	}
	m, err := models.New(b, spec, seed)
	if err != nil {
		return nil, err
	}
	if kind == models.KindJEM || kind == models.KindJEMEnsemble {
		opts, err := energy.PaperJEMOptions(dataset, split.Train, seed)
		if err != nil {
			return nil, err
		}
		if compat {
			opts = opts.WithPaperCode()
		}
		_, err = energy.TrainJEM(ctx, b, m, split.Train, opts)
		return m, err
	}
	s, err := models.PaperSettings(dataset)
	if err != nil {
		return nil, err
	}
	_, err = models.Train(ctx, b, m, split.Train, models.TrainOptions{Epochs: s.Epochs, BatchSize: s.BatchSize, LearningRate: s.LearningRate, Seed: seed})
	return m, err
}

func (st *state) loadVAE(ctx context.Context) (*vae.VAE, error) {
	if st.vae != nil {
		return st.vae, nil
	}
	dir := filepath.Join(st.modelsDir(), st.e.Dataset, "vae")
	v, err := vae.Load(st.r.Backend, dir)
	if err != nil {
		st.r.logf("%s: no saved VAE in %s; training one with the paper's settings", st.e.Dataset, dir)
		spec, err := vae.PaperSpec(st.e.Dataset, st.split.Train.D())
		if err != nil {
			return nil, err
		}
		if v, err = vae.New(st.r.Backend, spec, st.e.Seed); err != nil {
			return nil, err
		}
		opts, err := vae.PaperTrainOptions(st.e.Dataset)
		if err != nil {
			return nil, err
		}
		opts.Seed = st.e.Seed
		if _, err := vae.Train(ctx, st.r.Backend, v, st.split.Train, opts); err != nil {
			return nil, err
		}
		if err := v.Save(dir); err != nil {
			return nil, err
		}
	}
	st.vae = v
	return v, nil
}

// prepare draws the factuals and targets of a (model, run) group and prepares its generators' ingredients
// and its metrics (SGLD samples for unfaithfulness drawn once for the group).
func (st *state) prepare(ctx context.Context, u Unit, m *models.Model) (*group, error) {
	key := fmt.Sprintf("%s/%d", u.Model, u.Run)
	if st.groupKey == key {
		return st.group, nil
	}
	e, test, train := st.e, st.split.Test, st.split.Train
	run := fmt.Sprint(u.Run)
	rng := data.NewRand(seedFor(e.Seed, e.Dataset, "factuals", run))
	n := min(e.Factuals, test.N())
	g := &group{rows: rng.Perm(test.N())[:n]}
	for _, row := range g.rows {
		g.x = append(g.x, test.Row(row)...)
	}
	pred, err := models.Predict(st.r.Backend, m, g.x)
	if err != nil {
		return nil, err
	}
	trng := data.NewRand(seedFor(e.Seed, e.Dataset, string(u.Model), "targets", run))
	for i := range g.rows {
		t := trng.IntN(test.K() - 1)
		if t >= pred[i] {
			t++
		}
		g.targets = append(g.targets, t)
	}
	var names []string
	var v counterfactual.LatentMap
	for _, name := range e.Generators {
		switch strings.ToLower(name) {
		case "eccco+":
			if st.pca == nil {
				k, err := counterfactual.LatentDim(e.Dataset)
				if err != nil {
					return nil, err
				}
				if st.pca, err = counterfactual.FitPCA(train, min(k, train.D())); err != nil {
					return nil, err
				}
			}
			continue
		case "revise":
			vv, err := st.loadVAE(ctx)
			if err != nil {
				return nil, err
			}
			v = vv
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		names = []string{"ECCCo"} // calibration only
	}
	g.in, err = counterfactual.PaperIngredients(ctx, st.r.Backend, m, e.Dataset, train, v, seedFor(e.Seed, e.Dataset, string(u.Model), "ingredients", run), names...)
	if err != nil {
		return nil, err
	}
	g.in.PCA = st.pca
	if e.Compat {
		if g.in, err = g.in.WithPaperCode(train); err != nil {
			return nil, err
		}
	}
	// The unfaithfulness samples, drawn once for the group: the paper's inference setting, or in compat
	// mode the authors' sampler (which ECCCo-L1's penalty then uses too, as in their code).
	opts, err := energy.TargetSampleOptions(e.Dataset, train, e.Compat)
	if err != nil {
		return nil, err
	}
	if e.Compat && g.in.Samples != nil {
		if g.in.Samples, err = energy.SampleTargets(ctx, st.r.Backend, m, opts, seedFor(e.Seed, e.Dataset, string(u.Model), "ingredients", run)); err != nil {
			return nil, err
		}
	}
	ts, err := energy.SampleTargets(ctx, st.r.Backend, m, opts, seedFor(e.Seed, e.Dataset, string(u.Model), "unfaithfulness", run))
	if err != nil {
		return nil, err
	}
	mo := metrics.Options{}
	if e.Compat {
		mo = metrics.PaperCodeOptions()
	}
	if img := train.Image; img != nil {
		mo.Distance = metrics.ImageDissimilarity(img.Height, img.Width)
		if e.Compat {
			mo.Distance = metrics.ImageDissimilarityUncropped(img.Height, img.Width)
		}
	}
	g.eval = &metrics.Evaluator{Backend: st.r.Backend, Model: m, Calibrated: g.in.Calibrated, Train: train, Samples: ts, Options: mo}
	st.groupKey, st.group = key, g
	return g, nil
}

func (st *state) unit(ctx context.Context, u Unit) ([]Row, error) {
	m, err := st.model(ctx, u.Model)
	if err != nil {
		return nil, err
	}
	g, err := st.prepare(ctx, u, m)
	if err != nil {
		return nil, err
	}
	p, err := counterfactual.PaperParams(u.Dataset)
	if err != nil {
		return nil, err
	}
	gen, err := counterfactual.ByName(u.Generator, p, g.in)
	if err != nil {
		return nil, err
	}
	lo, hi := st.split.Train.Bounds()
	res, err := counterfactual.Search(ctx, st.r.Backend, m, gen, counterfactual.Request{Factuals: g.x, Targets: g.targets, Lower: lo, Upper: hi})
	if err != nil {
		return nil, err
	}
	scores, err := g.evaluator(gen, st.e.Compat).Evaluate(g.x, res.X, g.targets)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, len(scores))
	for i, s := range scores {
		rows[i] = Row{Dataset: u.Dataset, Model: string(u.Model), Generator: u.Generator, Run: u.Run, Factual: g.rows[i],
			Target: g.targets[i], Scores: s, Iterations: res.Iterations[i], Converged: res.Converged[i]}
	}
	return rows, nil
}

// ErrIncomplete reports units that have not been written yet.
var ErrIncomplete = errors.New("benchmark: results incomplete")

// Collect concatenates the units of the experiments, in canonical order, into Out/results.csv
// (atomically). It fails with ErrIncomplete, naming the first missing units, if any unit is missing.
func (r *Runner) Collect(exps ...Experiment) ([]Row, error) {
	var all []Row
	var missing []string
	for _, e := range exps {
		for _, u := range e.Units() {
			rows, err := ReadCSV(r.UnitPath(u))
			if err != nil {
				if os.IsNotExist(errors.Unwrap(err)) || errors.Is(err, os.ErrNotExist) {
					missing = append(missing, u.String())
					continue
				}
				return nil, err
			}
			all = append(all, rows...)
		}
	}
	if len(missing) > 0 {
		show := missing[:min(5, len(missing))]
		return nil, fmt.Errorf("%w: %d units missing (%s …); run the remaining shards or merge their outputs first", ErrIncomplete, len(missing), strings.Join(show, ", "))
	}
	if err := WriteCSVAtomic(filepath.Join(r.Out, "results.csv"), all); err != nil {
		return nil, err
	}
	return all, nil
}

// MergeDirs copies the unit files of shard output directories srcs into the runner's Out, so that Collect
// can join them. A unit present in several sources must be byte-identical in all.
func (r *Runner) MergeDirs(srcs ...string) (int, error) {
	copied := 0
	for _, src := range srcs {
		root := filepath.Join(src, "units")
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			isUnit := strings.HasSuffix(path, ".csv")
			if !isUnit && d.Name() != "experiment.json" {
				return nil
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			content, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dst := filepath.Join(r.Out, "units", rel)
			if old, err := os.ReadFile(dst); err == nil {
				if string(old) != string(content) {
					return fmt.Errorf("merging %s: %s differs from the one already in %s", src, rel, r.Out)
				}
				return nil
			}
			if isUnit {
				copied++
			}
			return atomicfile.WriteFile(dst, content, 0o644)
		})
		if err != nil {
			return copied, fmt.Errorf("merging %s: %w", src, err)
		}
	}
	return copied, nil
}

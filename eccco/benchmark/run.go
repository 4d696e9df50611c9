package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/gomlx/compute"

	"github.com/eccco-go/eccco-go/eccco/internal/clock"
)

// Runner runs protocols unit by unit, writing each finished unit atomically under Out, so that an
// interrupted run resumes where it stopped and ends with the same bytes as an uninterrupted one. The
// models, factuals, generators and metrics come from the experiment layer (package experiment).
type Runner struct {
	Backend compute.Backend
	// DataDir is the data directory ("" = data.DefaultDir()).
	DataDir string
	// ModelsDir holds trained models (experiment.Options.ModelsDir; "" = experiment.DefaultModelsDir());
	// missing ones are trained with the paper's settings and the protocol's seed, and saved there. A saved
	// model that does not match (another seed, mode, training setting) or cannot be read stops the run: it
	// is never trained over.
	ModelsDir string
	// AuthorsModelsDir is experiment.Options.AuthorsModelsDir: in the authors'-code mode the authors'
	// trained models are explained where they published them, unless Set says "authors-models": "false".
	AuthorsModelsDir string
	// Set overrides switches of the mode's settings by key (experiment.Options.Set, Settings.Set), e.g.
	// {"target-mix": "", "energy-decay-rate": "0"} for the authors'-code mode without its fitted switches.
	// The manifest records the resulting settings, so units of other settings never mix.
	Set map[string]string
	// Training overrides the paper's training settings (a quick profile); zero keeps the paper's.
	Training experiment.Training
	// Out is the result directory: Out/units/… per unit, Out/results.csv after Collect.
	Out string
	// Log receives one line per model trained or loaded, and per unit unless OnUnit is set (nil: silent);
	// Progress receives training progress bars; OnUnit, if set, is called after every unit.
	Log      io.Writer
	Progress io.Writer
	OnUnit   func(done, total int, u Unit, skipped bool)
}

// UnitPath is where a unit's rows are written.
func (r *Runner) UnitPath(u Unit) string {
	return filepath.Join(r.Out, "units", u.Dataset, string(u.Model), slug(u.Generator), fmt.Sprintf("run-%03d.csv", u.Run))
}

func slug(name string) string {
	s := strings.ToLower(name)
	s = strings.NewReplacer(" (", "-", ")", "", " ", "-", "+", "-plus", "/", "-", "=", "-").Replace(s)
	return s
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format+"\n", args...)
	}
}

// Open opens the protocol's data set in the experiment layer with the runner's settings.
func (r *Runner) Open(p Protocol) (*experiment.Experiment, error) {
	return experiment.Open(p.Dataset, experiment.Options{Backend: r.Backend, Mode: p.Mode, Sampling: p.Sampling, Seed: p.Seed, DataDir: r.DataDir,
		ModelsDir: r.ModelsDir, AuthorsModelsDir: r.AuthorsModelsDir, Set: r.Set,
		Training: r.Training, Progress: r.Progress, Log: r.Log})
}

// Run runs the protocol's units of one shard, skipping units already written.
func (r *Runner) Run(ctx context.Context, p Protocol, shard Shard) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if r.Backend == nil || r.Out == "" {
		return fmt.Errorf("%w: the benchmark runner needs a backend and an output directory", experiment.ErrInvalid)
	}
	if p.Seed == 0 {
		p.Seed = experiment.DefaultSeed
	}
	ex, err := r.Open(p)
	if err != nil {
		return err
	}
	defer ex.Close()
	for _, k := range p.Models {
		if ex.UsesAuthorsModels() {
			r.logf("%s %s: the authors' trained model", p.Dataset, k)
			continue
		}
		r.logf("%s %s: %s", p.Dataset, k, ex.ModelDir(k))
	}
	settings := ex.Settings()
	if err := r.claim(p, settings, nil); err != nil {
		return err
	}
	fingerprinted := map[string]bool{}
	units := shard.Select(p.Units())
	idx, bad, err := r.checkExisting(p, units)
	if err != nil {
		return err
	}
	// The time spent is recorded as the work it measures is kept: a model's when it is ready, a unit's
	// when the unit is written. A run killed at any point, and resumed, so sums the time of every unit
	// and model it kept over its invocations, and drops only the unit it was computing.
	tm := Timings{Dataset: p.Dataset}
	record := func() {
		if err := r.saveTimings(tm); err != nil {
			r.logf("benchmark: could not record the stage timings of %s: %v", p.Dataset, err)
		}
		tm = Timings{Dataset: p.Dataset}
	}
	for i, u := range units {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("benchmark interrupted before %s: %w", u, err)
		}
		path := r.UnitPath(u)
		if why, isBad := bad[u]; isBad {
			r.logf("recomputing %s: %v", u, why)
		} else if _, err := os.Stat(path); err == nil {
			if r.OnUnit != nil {
				r.OnUnit(i+1, len(units), u, true)
			}
			continue
		}
		if !fingerprinted[string(u.Model)] {
			// Units computed with another model's weights must not be mixed in: record the weights'
			// fingerprint, or check it against the one recorded.
			t0 := clock.Now()
			m, err := ex.Model(ctx, u.Model)
			tm.add("models", clock.Since(t0))
			if err != nil {
				return fmt.Errorf("benchmark %s: %w", u, err)
			}
			record()
			fp, err := experiment.Fingerprint(m)
			if err != nil {
				return err
			}
			if err := r.claim(p, settings, map[string]string{string(u.Model): fp}); err != nil {
				return err
			}
			fingerprinted[string(u.Model)] = true
		}
		start := clock.Now()
		rows, cfs, err := r.unit(ctx, ex, p, u, &tm)
		if err != nil {
			return fmt.Errorf("benchmark %s: %w", u, err)
		}
		tm.Units++
		// The counterfactuals first: a unit's metrics file (and its checksum) says that the unit is complete.
		if err := writeCounterfactuals(r.CounterfactualsPath(u), cfs); err != nil {
			return err
		}
		if err := r.writeUnit(u, rows, idx); err != nil {
			return err
		}
		record()
		if r.OnUnit != nil {
			r.OnUnit(i+1, len(units), u, false)
		} else {
			r.logf("%s: %d counterfactuals in %.1f s", u, len(rows), clock.Since(start).Seconds())
		}
	}
	return nil
}

// unit explains the factuals of one unit with its generator and scores them.
func (r *Runner) unit(ctx context.Context, ex *experiment.Experiment, p Protocol, u Unit, tm *Timings) ([]Row, Counterfactuals, error) {
	t0 := clock.Now()
	run, err := ex.Run(ctx, experiment.RunRequest{Kind: u.Model, Run: u.Run, N: p.Factuals, Generators: p.Generators})
	tm.add("preparation", clock.Since(t0))
	if err != nil {
		return nil, Counterfactuals{}, err
	}
	g, ok := p.generator(u.Generator)
	if !ok {
		return nil, Counterfactuals{}, fmt.Errorf("%w: no generator %q in the protocol", experiment.ErrInvalid, u.Generator)
	}
	x, err := run.Explain(ctx, g)
	if err != nil {
		return nil, Counterfactuals{}, err
	}
	tm.add("search", x.Search)
	tm.add("sampling", x.Sampling)
	tm.add("metrics", x.Scoring)
	f := x.Factuals
	rows := make([]Row, len(x.Scores))
	for i, s := range x.Scores {
		rows[i] = Row{Dataset: u.Dataset, Model: string(u.Model), Generator: u.Generator, Run: u.Run, Factual: f.Rows[i],
			Target: f.Targets[i], Scores: s, Iterations: x.Result.Iterations[i], Converged: x.Result.Converged[i]}
	}
	cfs := Counterfactuals{Features: ex.Split().Test.FeatureNames, Factuals: f.Rows, Target: f.Targets, X: x.Result.X}
	return rows, cfs, nil
}

// ProtocolVersion is the version of the code that produces unit results. It is stored with the units and
// raised whenever a change alters what a unit holds, so that a benchmark never resumes into (or merges)
// units computed under other rules. The authors' trained models (experiment.Settings.AuthorsModels) change
// the models, not the rules: their units are told apart by the models' fingerprints and the manifest's
// ModelSource. What each version changed is in the commit history of this constant.
const ProtocolVersion = 12

// ErrManifest reports a result directory whose units were computed under other settings (seed, factuals,
// mode, protocol version, a generator's definition or a model's weights) than a run or merge would add.
var ErrManifest = errors.New("benchmark: result directory holds units computed under other settings")

// Manifest records what the units of one data set in a result directory were computed with:
// Out/units/DATASET/experiment.json. Models, generators and runs may grow between resumptions (every unit
// stands alone); the scalar fields may not, nor may a generator's definition or a model's weights change.
type Manifest struct {
	Protocol int    `json:"protocol"`
	Dataset  string `json:"dataset"`
	Seed     uint64 `json:"seed"`
	Factuals int    `json:"factuals"`
	// Compat is read from manifests written before Mode was recorded (true: the authors'-code mode); it is
	// no longer written.
	Compat bool `json:"compat,omitempty"`
	// Mode is the experiment mode ("" in manifests written before it was recorded: read from Compat).
	Mode string `json:"mode,omitempty"`
	// Settings are the experiment's switches (experiment.Settings: the mode resolved for the data set);
	// nil in manifests written before they were recorded, which read them as their mode's.
	Settings *experiment.Settings `json:"settings,omitempty"`
	// Sampling is how the unfaithfulness samples were drawn (experiment.Sampling; "" is per-run).
	Sampling string `json:"sampling,omitempty"`
	// Generators maps each generator name to its definition (experiment.Generator.Describe).
	Generators map[string]string `json:"generators,omitempty"`
	// Models maps each model kind to the fingerprint of its weights (experiment.Fingerprint).
	Models map[string]string `json:"models,omitempty"`
	// ModelSource says where the models came from when eccco did not train them: "authors" for the
	// authors' trained models (experiment.Settings.AuthorsModels); "" for models eccco trained.
	ModelSource string `json:"model_source,omitempty"`
	// Backends lists the GoMLX backends that computed units here (compute.Backend.Name: "Go Backend", "xla", …),
	// sorted. Units of several backends may sit side by side: with the same models (Models) they agree
	// to compare.DefaultAgreementTolerance in almost every counterfactual (compare.Agree); the list says where a
	// result table's numbers came from. Absent in manifests written before it was recorded.
	Backends []string `json:"backends,omitempty"`
}

// fill completes a manifest read from an older eccco: its Mode from Compat, its Settings from its mode
// (and model source).
func (m *Manifest) fill() {
	if m.Mode == "" {
		m.Mode = experiment.Paper.String()
		if m.Compat {
			m.Mode = experiment.AuthorsCode.String()
		}
	}
	m.Compat = false
	if m.Settings == nil {
		if s, err := olderSettings(m.Mode, m.Dataset, m.ModelSource); err == nil {
			m.Settings = &s
		}
	}
}

// olderSettings are the settings of a manifest written before they were recorded (fill): its mode's for
// the data set, with the authors' models where its model source says so ("authors"); such runners had
// no other override.
func olderSettings(mode, dataset, source string) (experiment.Settings, error) {
	m, err := experiment.ParseMode(mode)
	if err != nil {
		return experiment.Settings{}, err
	}
	s, err := m.Settings(dataset)
	if err != nil {
		return s, err
	}
	s.AuthorsModels = source == "authors"
	return s, nil
}

// merge adds o's generators and models to m, failing with ErrManifest where the two disagree.
func (m *Manifest) merge(o Manifest, where string) (changed bool, err error) {
	m.fill()
	o.fill()
	if ms, os := experiment.Sampling(m.Sampling).String(), experiment.Sampling(o.Sampling).String(); ms != os {
		return false, fmt.Errorf("%w: %s holds %s units with %s unfaithfulness samples; this would add %s ones; choose another --out",
			ErrManifest, where, m.Dataset, ms, os)
	}
	if m.Protocol != o.Protocol || m.Dataset != o.Dataset || m.Seed != o.Seed || m.Factuals != o.Factuals || m.Mode != o.Mode {
		return false, fmt.Errorf("%w: %s holds %s units of protocol %d, seed %d, %d factuals, mode %s; this would add protocol %d, seed %d, %d factuals, mode %s; choose another --out",
			ErrManifest, where, m.Dataset, m.Protocol, m.Seed, m.Factuals, m.Mode, o.Protocol, o.Seed, o.Factuals, o.Mode)
	}
	if m.Settings != nil && o.Settings != nil && !onlyModelSource(*m.Settings, *o.Settings) {
		return false, fmt.Errorf("%w: %s holds %s units computed with the settings %s; this would add ones with %s; choose another --out",
			ErrManifest, where, m.Dataset, m.Settings.Describe(), o.Settings.Describe())
	}
	union := func(dst *map[string]string, src map[string]string, what string) error {
		for _, k := range slices.Sorted(maps.Keys(src)) {
			if have, ok := (*dst)[k]; ok {
				if have != src[k] {
					return fmt.Errorf("%w: %s holds %s %q computed as %q; this would add it as %q; choose another --out or name it differently",
						ErrManifest, where, what, k, have, src[k])
				}
				continue
			}
			if *dst == nil {
				*dst = map[string]string{}
			}
			(*dst)[k] = src[k]
			changed = true
		}
		return nil
	}
	switch {
	case m.ModelSource == "" && o.ModelSource != "":
		m.ModelSource, changed = o.ModelSource, true
	case o.ModelSource != "" && m.ModelSource != o.ModelSource:
		return false, fmt.Errorf("%w: %s holds %s units of %s models; this would add %s ones; choose another --out",
			ErrManifest, where, m.Dataset, m.ModelSource, o.ModelSource)
	}
	if err := union(&m.Generators, o.Generators, "generator"); err != nil {
		return false, err
	}
	if err := union(&m.Models, o.Models, "model (weights fingerprint)"); err != nil {
		return false, err
	}
	for _, b := range o.Backends {
		if !slices.Contains(m.Backends, b) {
			m.Backends = append(m.Backends, b)
			slices.Sort(m.Backends)
			changed = true
		}
	}
	return changed, nil
}

// ManifestPath is where the manifest of a data set's units is written.
func (r *Runner) ManifestPath(dataset string) string {
	return filepath.Join(r.Out, "units", dataset, "experiment.json")
}

// ReadManifests reads the manifests of a benchmark directory's data sets (dir/units/*/experiment.json) in
// the order of their paths, Mode filled in from Compat where a manifest predates it; none when dir holds
// no manifest.
func ReadManifests(dir string) ([]Manifest, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "units", "*", "experiment.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	out := make([]Manifest, 0, len(paths))
	for _, p := range paths {
		m, err := readManifest(p)
		if err != nil {
			return nil, err
		}
		m.fill()
		out = append(out, m)
	}
	return out, nil
}

// ManifestModes returns the experiment modes that the manifests of a benchmark directory record
// (ReadManifests), sorted and without repeats; none when it holds no manifest.
func ManifestModes(dir string) ([]experiment.Mode, error) {
	ms, err := ReadManifests(dir)
	if err != nil {
		return nil, err
	}
	var modes []experiment.Mode
	for _, m := range ms {
		mode, err := experiment.ParseMode(m.Mode)
		if err != nil {
			return nil, fmt.Errorf("benchmark: %s: %w", filepath.Join(dir, "units", m.Dataset, "experiment.json"), err)
		}
		if !slices.Contains(modes, mode) {
			modes = append(modes, mode)
		}
	}
	slices.Sort(modes)
	return modes, nil
}

// onlyModelSource reports whether two settings differ at most in AuthorsModels (the manifests' model
// sources are compared on their own).
func onlyModelSource(a, b experiment.Settings) bool {
	a.AuthorsModels = b.AuthorsModels
	return a == b
}

// ReadManifest reads a manifest (Out/units/DATASET/experiment.json); one written by an older eccco reads
// with its Mode and Settings filled in from what it recorded.
func ReadManifest(path string) (Manifest, error) {
	m, err := readManifest(path)
	if err != nil {
		return m, err
	}
	m.fill()
	return m, nil
}

func readManifest(path string) (Manifest, error) {
	var m Manifest
	raw, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fmt.Errorf("benchmark: reading %s: %w", path, err)
	}
	return m, nil
}

func writeManifest(path string, m Manifest) error {
	content, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(content, '\n'), 0o644)
}

// claim writes the protocol's manifest with the settings its experiment resolved
// (experiment.Experiment.Settings: the mode's for the data set with Runner.Set applied)
// and model fingerprints, if given, or checks that the one already there agrees with it and adds what
// is new. The model source is "authors" where the settings explain the authors' models.
func (r *Runner) claim(p Protocol, settings experiment.Settings, fingerprints map[string]string) error {
	source := ""
	if settings.AuthorsModels {
		source = "authors"
	}
	want := Manifest{ModelSource: source, Protocol: ProtocolVersion, Dataset: p.Dataset, Seed: p.Seed, Factuals: p.Factuals,
		Mode: p.Mode.String(), Settings: &settings, Generators: map[string]string{}, Models: fingerprints,
		Backends: []string{r.Backend.Name()}}
	if p.Sampling == experiment.PerCounterfactual {
		want.Sampling = p.Sampling.String()
	}
	for _, g := range p.Generators {
		want.Generators[g.Name] = g.Describe()
	}
	path := r.ManifestPath(p.Dataset)
	have, err := readManifest(path)
	switch {
	case err == nil:
		changed, err := have.merge(want, filepath.Dir(path))
		if err != nil || !changed {
			return err
		}
		return writeManifest(path, have)
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("benchmark: %w", err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) > 0 {
		return fmt.Errorf("%w: %s holds units without a manifest (an older eccco); choose another --out", ErrManifest, filepath.Dir(path))
	}
	return writeManifest(path, want)
}

// ErrIncomplete reports units that have not been written yet.
var ErrIncomplete = errors.New("benchmark: results incomplete")

// Collect concatenates the units of the protocols, in canonical order, into Out/results.csv
// (atomically). It fails with ErrIncomplete, naming the first missing units, if any unit is missing.
func (r *Runner) Collect(ps ...Protocol) ([]Row, error) {
	var all []Row
	var missing []string
	for _, p := range ps {
		idx, err := readChecksums(r.checksumsPath(p.Dataset))
		if err != nil {
			return nil, err
		}
		runs := map[string]map[Unit][]Row{}
		for _, u := range p.Units() {
			rows, err := r.checkUnit(u, p.Factuals, idx)
			if err != nil {
				if errors.Is(err, os.ErrNotExist) {
					missing = append(missing, u.String())
					continue
				}
				return nil, fmt.Errorf("%w; rerun the benchmark with the same flags to recompute it", err)
			}
			key := fmt.Sprintf("%s/%d", u.Model, u.Run)
			if runs[key] == nil {
				runs[key] = map[Unit][]Row{}
			}
			runs[key][u] = rows
			all = append(all, rows...)
		}
		for _, k := range slices.Sorted(maps.Keys(runs)) {
			if _, err := checkRun(r, runs[k]); err != nil {
				return nil, fmt.Errorf("%w; rerun the benchmark with the same flags to recompute it", err)
			}
		}
	}
	if len(missing) > 0 {
		show := missing[:min(5, len(missing))]
		return nil, fmt.Errorf("%w: %d units missing (%s …); run the remaining shards or merge their outputs first", ErrIncomplete, len(missing), strings.Join(show, ", "))
	}
	if err := writeResults(r.Out, all); err != nil {
		return nil, err
	}
	return all, nil
}

// MergeDirs copies the unit files of shard output directories srcs into the runner's Out, so that Collect
// can join them. A unit present in several sources must be byte-identical in all; manifests are merged
// and must agree (same settings, same generator definitions, same model weights), or ErrManifest.
func (r *Runner) MergeDirs(srcs ...string) (int, error) {
	copied := 0
	for _, src := range srcs {
		root := filepath.Join(src, "units")
		if _, err := os.Stat(root); err != nil {
			return copied, fmt.Errorf("merging %s: no benchmark units there: %w", src, err)
		}
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			dst := filepath.Join(r.Out, "units", rel)
			if d.Name() == "experiment.json" {
				return mergeManifest(path, dst)
			}
			if d.Name() == "checksums.json" {
				return mergeChecksums(path, dst)
			}
			isUnit := strings.HasSuffix(path, ".csv")
			if !isUnit && !strings.HasSuffix(path, counterfactualsSuffix) {
				return nil
			}
			content, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if old, err := os.ReadFile(dst); err == nil {
				if string(old) != string(content) {
					return fmt.Errorf("%s differs from the one already in %s", rel, r.Out)
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

// mergeManifest merges the manifest at src into the one at dst (or copies it there).
func mergeManifest(src, dst string) error {
	in, err := readManifest(src)
	if err != nil {
		return err
	}
	have, err := readManifest(dst)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return writeManifest(dst, in)
	case err != nil:
		return err
	}
	changed, err := have.merge(in, filepath.Dir(dst))
	if err != nil || !changed {
		return err
	}
	return writeManifest(dst, have)
}

package benchmark

import (
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// BoundKey names a data set and a model as the tables do ("MLP Ensemble").
type BoundKey struct{ Dataset, Model string }

// UncertaintyBound is what our calibration allows the uncertainty metric of one data set and model: the
// range [Min, Max] of Ω over every valid counterfactual (p(y⁺|x′) ≥ 0.5) of every run
// (conformal.ValidOmegaRange at each run's q̂), and the q̂ behind it.
type UncertaintyBound struct {
	QHatMin, QHatMax float64
	Min, Max         float64
	// Runs is how many calibrations were read: one in the authors'-code mode, whose calibration half is
	// the same for every run; every run in the paper mode, which calibrates each run on a random half.
	Runs int
}

// UncertaintyBounds maps data sets and models to their UncertaintyBound.
type UncertaintyBounds map[BoundKey]UncertaintyBound

// UncertaintyBounds computes the UncertaintyBound of every data set and model in runs (models named by
// their titles, as the tables name them; the value is how many runs the results hold), from the models
// saved under r.ModelsDir for the protocol's mode and seed (never training one: a model that is not
// saved, or that is not the one a manifest under r.Out recorded, is skipped and named in the notes).
// The paper mode reads every run's calibration; the authors'-code mode reads its one.
func (r *Runner) UncertaintyBounds(mode experiment.Mode, seed uint64, runs map[BoundKey]int) (UncertaintyBounds, []string, error) {
	keys := slices.SortedFunc(maps.Keys(runs), BoundKey.compare)
	out := UncertaintyBounds{}
	var notes []string
	exps := map[string]*experiment.Experiment{}
	missing := map[string][]string{} // data set → kinds with no saved model
	for _, k := range keys {
		kind, ok := kindOfTitle(k.Model)
		if !ok {
			notes = append(notes, fmt.Sprintf("%s %s: not a model kind", k.Dataset, k.Model))
			continue
		}
		ex, ok := exps[k.Dataset]
		if !ok {
			var err error
			quiet := *r // the models are only read: no "loaded" lines, no progress bars
			quiet.Log, quiet.Progress = nil, nil
			if m, err := readManifest(r.ManifestPath(k.Dataset)); err == nil {
				// The models the units were computed with: the authors' where the manifest says so,
				// else eccco's own (also for manifests written before the authors' models were read).
				if m.ModelSource != "authors" {
					quiet.Set = maps.Clone(r.Set)
					if quiet.Set == nil {
						quiet.Set = map[string]string{}
					}
					quiet.Set["authors-models"] = "false"
				}
			}
			ex, err = quiet.Open(Protocol{Dataset: k.Dataset, Mode: mode, Seed: seed})
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v", k.Dataset, err))
				exps[k.Dataset] = nil
				continue
			}
			exps[k.Dataset] = ex
		}
		if ex == nil {
			continue
		}
		b, note, err := r.boundOf(ex, kind, runs[k])
		switch {
		case errors.Is(err, models.ErrNoModel):
			missing[k.Dataset] = append(missing[k.Dataset], string(kind))
		case err != nil:
			return nil, notes, err
		case note != "":
			notes = append(notes, note)
		default:
			out[k] = b
		}
	}
	for _, d := range slices.Sorted(maps.Keys(missing)) {
		notes = append(notes, fmt.Sprintf("%s: no saved %s under %s: no calibration bound for %s",
			d, strings.Join(missing[d], ", "), filepath.Dir(exps[d].ModelDir(models.KindMLP)), map[bool]string{true: "it", false: "them"}[len(missing[d]) == 1]))
	}
	return out, notes, nil
}

// compare orders keys by data set, then model.
func (k BoundKey) compare(o BoundKey) int {
	if c := strings.Compare(k.Dataset, o.Dataset); c != 0 {
		return c
	}
	return strings.Compare(k.Model, o.Model)
}

// SortedKeys lists the data sets and models of bounds in order.
func (b UncertaintyBounds) SortedKeys() []BoundKey {
	return slices.SortedFunc(maps.Keys(b), BoundKey.compare)
}

// boundOf computes one model's bound, or a note saying why it cannot.
func (r *Runner) boundOf(ex *experiment.Experiment, kind models.Kind, runs int) (UncertaintyBound, string, error) {
	m, err := ex.SavedModel(kind)
	if errors.Is(err, models.ErrNoModel) {
		return UncertaintyBound{}, "", err
	}
	if err != nil {
		return UncertaintyBound{}, fmt.Sprintf("%s %s: no calibration bound: %v", ex.Dataset(), kind, err), nil
	}
	if man, err := readManifest(r.ManifestPath(ex.Dataset())); err == nil && man.Models[string(kind)] != "" {
		fp, err := experiment.Fingerprint(m)
		if err != nil {
			return UncertaintyBound{}, "", err
		}
		if fp != man.Models[string(kind)] {
			return UncertaintyBound{}, fmt.Sprintf("%s %s: no calibration bound: the saved model (%s) is not the one the results were computed with (%s)",
				ex.Dataset(), kind, fp, man.Models[string(kind)]), nil
		}
	}
	if ex.FixedCalibration() || runs < 1 {
		runs = 1
	}
	b := UncertaintyBound{QHatMin: math.Inf(1), QHatMax: math.Inf(-1), Min: math.Inf(1), Max: math.Inf(-1), Runs: runs}
	for run := 1; run <= runs; run++ {
		c, err := ex.Calibrated(kind, run)
		if err != nil {
			return UncertaintyBound{}, "", err
		}
		o := c.Opts
		rg, err := conformal.ValidOmegaRange(c.QHat, o.Temperature, o.Kappa, m.NumClasses(), o.EmptySetRule, 0.5)
		if err != nil {
			return UncertaintyBound{}, "", err
		}
		b.QHatMin, b.QHatMax = min(b.QHatMin, c.QHat), max(b.QHatMax, c.QHat)
		b.Min, b.Max = min(b.Min, rg.Min), max(b.Max, rg.Max)
	}
	return b, "", nil
}

// kindOfTitle maps a table's model title back to its kind.
func kindOfTitle(title string) (models.Kind, bool) {
	for _, k := range models.Kinds() {
		if k.Title() == title || string(k) == title {
			return k, true
		}
	}
	return "", false
}

// BoundsFile is the file beside cells.csv that holds the calibration bounds of the comparison
// (report.WriteTableSet writes it, with a header alone when there are none; `eccco report` reads it).
const BoundsFile = "calibration.csv"

var boundsHeader = []string{"dataset", "model", "qhat_min", "qhat_max", "omega_min", "omega_max", "runs"}

// WriteBounds writes bounds as CSV (atomically), by data set and model.
func WriteBounds(path string, bounds UncertaintyBounds) error {
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	_ = w.Write(boundsHeader)
	keys := bounds.SortedKeys()
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, k := range keys {
		b := bounds[k]
		_ = w.Write([]string{k.Dataset, k.Model, g(b.QHatMin), g(b.QHatMax), g(b.Min), g(b.Max), strconv.Itoa(b.Runs)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, []byte(sb.String()), 0o644)
}

// ReadBounds reads a file that WriteBounds wrote.
func ReadBounds(path string) (UncertaintyBounds, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], boundsHeader) {
		return nil, fmt.Errorf("reading %s: not a calibration bounds file (header %v)", path, boundsHeader)
	}
	out := UncertaintyBounds{}
	for i, r := range recs[1:] {
		var v [4]float64
		for j := range v {
			if v[j], err = strconv.ParseFloat(r[2+j], 64); err != nil {
				return nil, fmt.Errorf("reading %s line %d: %w", path, i+2, err)
			}
		}
		runs, err := strconv.Atoi(r[6])
		if err != nil {
			return nil, fmt.Errorf("reading %s line %d: %w", path, i+2, err)
		}
		out[BoundKey{r[0], r[1]}] = UncertaintyBound{QHatMin: v[0], QHatMax: v[1], Min: v[2], Max: v[3], Runs: runs}
	}
	return out, nil
}

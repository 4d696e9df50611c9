package report

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// TableSet is what WriteTableSet wrote.
type TableSet struct {
	Cells []compare.Cell
	// Comparison is nil when the published numbers were not found at Published (the default path).
	Comparison *compare.Comparison
	// Provenance is the comparison's "Results from:" line ("" without a comparison).
	Provenance string
	Published  string
}

// TableSetOptions are WriteTableSet's. Kept are cells written earlier (ReadKept; nil for none): a data
// set × model × generator's cells come from the rows when the rows have it, from Kept otherwise, so that a
// new data set's benchmark (or a rerun of some generators) joins the committed tables without their
// per-counterfactual rows; the kept data sets keep their calibration bounds unless Bounds has the model. Published names the paper's numbers
// ("" for compare.DefaultPublished(), which may be missing). Bounds are the calibration bounds that
// explain uncertainty misses (benchmark.Runner.UncertaintyBounds; compare.CompareWithBounds).
type TableSetOptions struct {
	Kept      *Kept
	Published string
	Bounds    benchmark.UncertaintyBounds
}

// WriteTableSet aggregates result rows into the paper's tables (WriteTables: LaTeX, Markdown, CSV), writes
// its parameter tables (WriteParameterTables) and the calibration bounds (benchmark.BoundsFile) under dir,
// and compares the cells with the published numbers in comparison.md (ComparisonMarkdown). The default
// published file may be missing (TableSet.Comparison is then nil); an explicit one that cannot be read is
// an error: the comparison is never skipped silently.
func WriteTableSet(dir string, rows []benchmark.Row, o TableSetOptions) (*TableSet, error) {
	return writeTableSet(dir, rows, o, nil)
}

// rerender is how RerenderTableSet's table set differs from a fresh one.
type rerender struct {
	// provenance is the comparison's "Results from:" line verbatim, note a line after it.
	provenance, note string
	// emptyBounds writes the calibration bounds file even when there are none.
	emptyBounds bool
}

// writeTableSet is WriteTableSet, re-rendering when re is not nil.
func writeTableSet(dir string, rows []benchmark.Row, o TableSetOptions, re *rerender) (*TableSet, error) {
	rms := compare.RunMeans(rows)
	cells := compare.AggregateRunMeans(rms)
	fresh := map[string]bool{}        // data sets the rows have
	freshCell := map[[3]string]bool{} // (data set, model, generator) the rows have
	for _, c := range cells {
		fresh[c.Dataset] = true
		freshCell[[3]string{c.Dataset, c.Model, c.Generator}] = true
	}
	var keptSets []string
	bounds := maps.Clone(o.Bounds)
	if o.Kept != nil {
		for _, r := range o.Kept.RunMeans {
			if !freshCell[[3]string{r.Dataset, r.Model, r.Generator}] {
				rms = append(rms, r)
			}
		}
		for _, c := range o.Kept.Cells {
			if !freshCell[[3]string{c.Dataset, c.Model, c.Generator}] {
				cells = append(cells, c)
				name := c.Dataset
				if fresh[c.Dataset] {
					name += " (the models and generators the rows lack)"
				}
				if !slices.Contains(keptSets, name) {
					keptSets = append(keptSets, name)
				}
			}
		}
		for k, b := range o.Kept.Bounds {
			if _, ok := bounds[k]; !ok && !fresh[k.Dataset] {
				if bounds == nil {
					bounds = benchmark.UncertaintyBounds{}
				}
				bounds[k] = b
			}
		}
	}
	slices.Sort(keptSets)
	compare.Mark(cells) // a generator's stars and the bold best are read across fresh and kept cells alike
	ts := &TableSet{Cells: cells, Published: o.Published}
	if err := WriteTables(dir, ts.Cells); err != nil {
		return nil, err
	}
	if err := writeArchive(dir, cells, rms); err != nil {
		return nil, err
	}
	if err := WriteParameterTables(dir); err != nil {
		return nil, err
	}
	if re == nil || re.emptyBounds || len(bounds) > 0 {
		if err := benchmark.WriteBounds(filepath.Join(dir, benchmark.BoundsFile), bounds); err != nil {
			return nil, fmt.Errorf("writing the calibration bounds: %w", err)
		}
	}
	explicit := o.Published != ""
	if !explicit {
		ts.Published = compare.DefaultPublished()
	}
	pub, err := compare.ReadPublished(ts.Published)
	if err != nil {
		if explicit || !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("reading the published numbers: %w", err)
		}
		return ts, nil
	}
	cmp := compare.CompareWithBounds(ts.Cells, pub, bounds)
	ts.Provenance = tablesProvenance(dir, len(rows))
	if len(keptSets) > 0 {
		ts.Provenance += fmt.Sprintf("; the cells of %s kept from %s", strings.Join(keptSets, ", "), o.Kept.From)
	}
	md := ComparisonMarkdown(cmp, ts.Provenance)
	if re != nil {
		ts.Provenance = re.provenance
		md = comparisonMarkdown(cmp, ts.Provenance, re.note)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "comparison.md"), []byte(md), 0o644); err != nil {
		return nil, fmt.Errorf("writing the comparison: %w", err)
	}
	ts.Comparison = &cmp
	return ts, nil
}

// ErrNotTableSet is returned by RerenderTableSet for a directory that holds no table set of eccco's, or an
// output directory whose comparison.md eccco did not write.
var ErrNotTableSet = errors.New("report: not a table set written by eccco")

// comparisonTitle opens every comparison.md that ComparisonMarkdown writes.
const comparisonTitle = "# Ours against the published results\n"

// RerenderTableSet rebuilds a table set written earlier (a committed one: cells.csv, calibration.csv and
// comparison.md, without the results behind them) from its cells.csv into out (in itself, or another
// directory): every table, the parameter tables and comparison.md, with the current code's rendering and
// counts. The comparison keeps the "Results from:" line of the comparison it replaces verbatim (the
// results are the same) and says, on a line after it, that it was re-rendered and by which commit. It
// refuses to replace a comparison.md in out that eccco did not write (ErrNotTableSet), and writes the
// calibration bounds file only where in has one or there are bounds.
func RerenderTableSet(in, out string, o TableSetOptions) (*TableSet, error) {
	k, err := ReadKept(filepath.Join(in, "cells.csv"))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotTableSet, in, err)
	}
	for _, p := range []string{filepath.Join(in, "comparison.md"), filepath.Join(out, "comparison.md")} {
		raw, err := os.ReadFile(p)
		if err == nil && !strings.HasPrefix(string(raw), comparisonTitle) {
			return nil, fmt.Errorf("%w: %s does not begin %q", ErrNotTableSet, p, strings.TrimSpace(comparisonTitle))
		}
	}
	re := &rerender{provenance: recordedProvenance(filepath.Join(in, "comparison.md"))}
	if re.provenance == "" {
		re.provenance = "the cells of " + filepath.Join(in, "cells.csv") + " (no comparison beside them recorded where they came from)"
	}
	_, err = os.Stat(filepath.Join(in, benchmark.BoundsFile))
	re.emptyBounds = err == nil
	re.note = "Re-rendered from " + filepath.Join(in, "cells.csv") + " without rerunning (eccco tables --in) by eccco-go " + revisionText() + "."
	o.Kept = k
	bounds := maps.Clone(k.Bounds)
	maps.Copy(bounds, o.Bounds)
	o.Bounds = bounds
	return writeTableSet(out, nil, o, re)
}

// tablesProvenance describes where the results behind a table set came from: the commit (ReadRevision),
// the protocol version, the number of counterfactuals, and the settings of each data set's units (their
// manifests, when the tables sit in a benchmark directory's tables/ folder).
func tablesProvenance(tablesDir string, counterfactuals int) string {
	parts := []string{fmt.Sprintf("tables written by eccco-go %s (protocol %d) from %d counterfactuals", revisionText(), benchmark.ProtocolVersion, counterfactuals)}
	manifests, _ := benchmark.ReadManifests(filepath.Dir(tablesDir))
	for _, m := range manifests {
		part := fmt.Sprintf("%s: mode %s, seed %d, %d factuals per run, units of protocol %d", m.Dataset, m.Mode, m.Seed, m.Factuals, m.Protocol)
		if ov := settingsOverrides(m); ov != "" {
			part += ", with " + ov + " set against the mode"
		}
		if m.ModelSource == "authors" {
			part += ", the authors' trained models (ECCCo.jl models/)"
		}
		if len(m.Backends) > 0 {
			part += ", computed on " + strings.Join(m.Backends, " and ")
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// settingsOverrides lists the switches a manifest records with values other than its mode's for its data set
// (experiment.Mode.Settings), as "key=value" separated by spaces: the --set overrides of the run (e.g. the
// replay-only results' "target-mix=none energy-decay-rate=0"). "" when there are none or the manifest records
// no settings.
func settingsOverrides(m benchmark.Manifest) string {
	if m.Settings == nil {
		return ""
	}
	def, err := experiment.Mode(m.Mode).Settings(m.Dataset)
	if err != nil {
		return ""
	}
	var diff []string
	for _, k := range experiment.SettingKeys() {
		if k == "authors-models" {
			continue // the descriptor's model source says it
		}
		if got := m.Settings.Describe(k); got != def.Describe(k) {
			diff = append(diff, got)
		}
	}
	return strings.Join(diff, " ")
}

// revisionText names the commit this program's outputs come from (ReadRevision at the checkout that holds
// the working directory): "commit abc (the checkout's HEAD)", "… (with uncommitted changes)", or
// "unknown commit".
func revisionText() string {
	root := "."
	if wd, err := os.Getwd(); err == nil {
		if r, ok := data.ModuleRoot(wd); ok {
			root = r
		}
	}
	rv := ReadRevision(root)
	switch {
	case rv.Rev == "":
		return "unknown commit"
	case rv.Checkout && rv.Dirty:
		return "commit " + rv.Rev + " (the checkout's HEAD, with uncommitted changes)"
	case rv.Checkout:
		return "commit " + rv.Rev + " (the checkout's HEAD)"
	case rv.Dirty:
		return "commit " + rv.Rev + " (with uncommitted changes)"
	}
	return "commit " + rv.Rev
}

// Revision is the commit that a program's outputs come from.
type Revision struct {
	// Rev is the commit's first 12 hex digits; "" when it cannot be told.
	Rev string
	// Dirty reports uncommitted changes: in the build's tree (vcs.modified), or in tracked files of the
	// checkout.
	Dirty bool
	// Checkout is true when Rev is the checkout's HEAD (git), not the commit stamped into the build.
	Checkout bool
}

// ReadRevision returns the commit stamped into the build (runtime/debug.ReadBuildInfo: vcs.revision and
// vcs.modified) or, when the build carries none (go run, go test, -buildvcs=false), the HEAD of the git
// checkout at root and whether its tracked files differ from it (git rev-parse, git status); the zero
// Revision when neither can be told.
func ReadRevision(root string) Revision {
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rv Revision
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rv.Rev = s.Value[:min(12, len(s.Value))]
			case "vcs.modified":
				rv.Dirty = s.Value == "true"
			}
		}
		if rv.Rev != "" {
			return rv
		}
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return Revision{}
	}
	rv := Revision{Rev: strings.TrimSpace(string(out)), Checkout: true}
	rv.Rev = rv.Rev[:min(12, len(rv.Rev))]
	st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output()
	rv.Dirty = err == nil && len(strings.TrimSpace(string(st))) > 0
	return rv
}

// writeArchive writes the run means of the table set's data sets whose every cell has them beside its
// cells (RunMeansFile), after checking that they give exactly those cells; where no data set has them all
// it writes none and removes the one an earlier table set left in dir, which would no longer match.
func writeArchive(dir string, cells []compare.Cell, rms []compare.RunMean) error {
	path := filepath.Join(dir, RunMeansFile)
	rms = archivable(cells, rms)
	if len(rms) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("removing the run means of an earlier table set: %w", err)
		}
		return nil
	}
	if _, err := checkRunMeans(cells, rms, filepath.Join(dir, "cells.csv"), path); err != nil {
		return err
	}
	return WriteRunMeans(path, rms)
}

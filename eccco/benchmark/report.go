package benchmark

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// DefaultPublished is the paper's numbers as shipped with this repository: paper/published-results.csv
// at the root of the checkout that holds the working directory (else relative to it).
func DefaultPublished() string {
	if wd, err := os.Getwd(); err == nil {
		if root, ok := data.ModuleRoot(wd); ok {
			return filepath.Join(root, "paper", "published-results.csv")
		}
	}
	return filepath.Join("paper", "published-results.csv")
}

// Report is what WriteReport wrote.
type Report struct {
	Cells []Cell
	// Comparison is nil when the published numbers were not found at Published (the default path).
	Comparison *Comparison
	Published  string
}

// WriteReport aggregates result rows into the paper's tables (LaTeX, Markdown, CSV) and its parameter
// tables under dir, and compares them with the published numbers in comparison.md. published names
// their CSV; "" means DefaultPublished(), which may be missing (Report.Comparison is then nil). An explicit
// file that cannot be read is an error: the comparison is never skipped silently.
func WriteReport(dir string, rows []Row, published string) (*Report, error) {
	return WriteReportKeeping(dir, rows, nil, "", published)
}

// WriteReportKeeping is WriteReport with the cells of data sets that rows do not hold taken from kept
// (cells written earlier, e.g. a committed cells.csv read by ReadCells; keptFrom names where they came from
// for the comparison's provenance): a data set's cells come from rows when rows have it, from kept
// otherwise. It joins results computed at different times, e.g. a new data set's benchmark to the
// committed tables of the others, without their per-counterfactual rows.
func WriteReportKeeping(dir string, rows []Row, kept []Cell, keptFrom, published string) (*Report, error) {
	return WriteReportWith(dir, rows, ReportOptions{Kept: kept, KeptFrom: keptFrom, Published: published})
}

// ReportOptions are WriteReportWith's: the kept cells and where they came from (WriteReportKeeping), the
// published numbers (WriteReport) and the calibration bounds that explain uncertainty misses
// (Runner.UncertaintyBounds; CompareWithBounds).
type ReportOptions struct {
	Kept      []Cell
	KeptFrom  string
	Published string
	Bounds    UncertaintyBounds
}

// WriteReportWith is WriteReport with options.
func WriteReportWith(dir string, rows []Row, o ReportOptions) (*Report, error) {
	kept, keptFrom, published := o.Kept, o.KeptFrom, o.Published
	cells := Aggregate(rows)
	fresh := map[string]bool{}
	for _, c := range cells {
		fresh[c.Dataset] = true
	}
	var keptSets []string
	for _, c := range kept {
		if !fresh[c.Dataset] {
			cells = append(cells, c)
			if !slices.Contains(keptSets, c.Dataset) {
				keptSets = append(keptSets, c.Dataset)
			}
		}
	}
	slices.Sort(keptSets)
	rep := &Report{Cells: cells, Published: published}
	if err := WriteTables(dir, rep.Cells); err != nil {
		return nil, err
	}
	if err := WriteParameterTables(dir); err != nil {
		return nil, err
	}
	if err := WriteBounds(filepath.Join(dir, BoundsFile), o.Bounds); err != nil {
		return nil, fmt.Errorf("writing the calibration bounds: %w", err)
	}
	explicit := published != ""
	if !explicit {
		rep.Published = DefaultPublished()
	}
	pub, err := ReadPublished(rep.Published)
	if err != nil {
		if explicit || !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("reading the published numbers: %w", err)
		}
		return rep, nil
	}
	cmp := CompareWithBounds(rep.Cells, pub, o.Bounds)
	cmp.Provenance = provenance(dir, len(rows))
	if len(keptSets) > 0 {
		cmp.Provenance += fmt.Sprintf("; the cells of %s kept from %s", strings.Join(keptSets, ", "), keptFrom)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "comparison.md"), []byte(cmp.Markdown()), 0o644); err != nil {
		return nil, fmt.Errorf("writing the comparison: %w", err)
	}
	rep.Comparison = &cmp
	return rep, nil
}

// provenance describes where the results behind a report came from: the build's commit (as Go records it
// for a build inside a git checkout), the protocol version, the number of counterfactuals, and the
// settings of each data set's units (their manifests, when the tables sit in a benchmark directory's
// tables/ folder).
func provenance(tablesDir string, counterfactuals int) string {
	commit := "unknown commit"
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			commit = "commit " + rev[:min(12, len(rev))]
			if modified == "true" {
				commit += " (with uncommitted changes)"
			}
		}
	}
	if commit == "unknown commit" {
		if rev := gitHead(); rev != "" {
			commit = "commit " + rev[:min(12, len(rev))] + " (the checkout's HEAD)"
		}
	}
	parts := []string{fmt.Sprintf("tables written by eccco-go %s (protocol %d) from %d counterfactuals", commit, ProtocolVersion, counterfactuals)}
	manifests, _ := filepath.Glob(filepath.Join(filepath.Dir(tablesDir), "units", "*", "experiment.json"))
	slices.Sort(manifests)
	for _, path := range manifests {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var m Manifest
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		m.fill()
		part := fmt.Sprintf("%s: mode %s, seed %d, %d factuals per run, units of protocol %d", m.Dataset, m.Mode, m.Seed, m.Factuals, m.Protocol)
		if m.ModelSource == "authors" {
			part += ", the authors' trained models (ECCCo.jl models/)"
		}
		if len(m.Backends) > 0 {
			part += " computed on " + strings.Join(m.Backends, " and ")
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, "; ")
}

// gitHead reads the commit of the checkout that holds the working directory from its .git folder (for
// builds without Go's VCS stamp, e.g. under -buildvcs=false); "" when there is none.
func gitHead() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	root, ok := data.ModuleRoot(wd)
	if !ok {
		return ""
	}
	gitDir := filepath.Join(root, ".git")
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	ref, isRef := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: ")
	if !isRef {
		return ref
	}
	if rev, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(rev))
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(packed), "\n") {
		if rev, name, ok := strings.Cut(line, " "); ok && name == ref {
			return rev
		}
	}
	return ""
}

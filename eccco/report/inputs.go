package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/reproduce"
)

// ErrNoResults reports a results directory that holds neither a benchmark's results.csv nor its tables'
// cells.csv.
var ErrNoResults = errors.New("report: no benchmark results")

// Results are the aggregated benchmark cells and where they came from.
type Results struct {
	Dir   string
	Cells []compare.Cell
	// Counterfactuals is the number of result rows (0 when only the aggregated cells were found).
	Counterfactuals int
	// RunMeans are the cells' per-run means: computed from the rows, or read from the archive beside a
	// tables directory's cells.csv (RunMeansFile, checked to give Cells); nil where neither exists.
	RunMeans []compare.RunMean
	// Archived lists the data sets whose cells RunMeans give (whole data sets; RunMeansFile).
	Archived []string
	// Manifests are the data sets' unit manifests (a benchmark directory's units/*/experiment.json).
	Manifests []benchmark.Manifest
	// Recorded is the provenance line of the comparison report beside the cells ("Results from: …"),
	// for tables copied without their units (paper/results/).
	Recorded string
	// Bounds are the calibration bounds beside the cells (benchmark.BoundsFile; nil where there is none).
	Bounds benchmark.UncertaintyBounds
	// Mode is the experiment mode the results were made in ("authors-code", "paper"), from the first
	// manifest or the first "mode X," of Recorded; "" when neither says.
	Mode string
}

var recordedMode = regexp.MustCompile(`mode ([a-z-]+),`)

func (r *Results) setMode() {
	if len(r.Manifests) > 0 {
		r.Mode = r.Manifests[0].Mode
		return
	}
	if m := recordedMode.FindStringSubmatch(r.Recorded); m != nil {
		r.Mode = m[1]
	}
}

// LoadResults reads a benchmark result directory: the output of `eccco bench --out DIR` (results.csv,
// units/, tables/) or a tables directory (cells.csv and comparison.md, as paper/results/; with the per-run
// means of RunMeansFile beside them, checked to give the cells: ErrRunMeansDisagree otherwise).
func LoadResults(dir string) (*Results, error) {
	res := &Results{Dir: dir}
	if rows, err := benchmark.ReadResults(dir); err == nil {
		res.RunMeans = compare.RunMeans(rows)
		res.Cells = compare.AggregateRunMeans(res.RunMeans)
		res.Archived = archivedSets(res.RunMeans)
		res.Counterfactuals = len(rows)
		if res.Manifests, err = benchmark.ReadManifests(dir); err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		res.Recorded = recordedProvenance(filepath.Join(dir, "tables", "comparison.md"))
		if res.Bounds, err = readBounds(filepath.Join(dir, "tables")); err != nil {
			return nil, err
		}
		res.setMode()
		return res, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	for _, tables := range []string{filepath.Join(dir, "tables"), dir} {
		cells, rms, err := readTableCells(filepath.Join(tables, "cells.csv"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		res.Cells, res.RunMeans, res.Archived = cells, rms, archivedSets(rms)
		res.Recorded = recordedProvenance(filepath.Join(tables, "comparison.md"))
		if res.Bounds, err = readBounds(tables); err != nil {
			return nil, err
		}
		res.setMode()
		return res, nil
	}
	return nil, fmt.Errorf("%w in %s: neither results.csv nor cells.csv (run `eccco bench --out %s` first)", ErrNoResults, dir, dir)
}

// readBounds reads the calibration bounds of a tables directory: nil where it has none.
func readBounds(tables string) (benchmark.UncertaintyBounds, error) {
	b, err := benchmark.ReadBounds(filepath.Join(tables, benchmark.BoundsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return b, nil
}

// recordedProvenance is the "Results from: …" line of a comparison report ("" if none).
func recordedProvenance(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, "Results from: "); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}

// ReadCells reads the cells.csv that WriteTables writes.
func ReadCells(path string) ([]compare.Cell, error) {
	recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	want := []string{"dataset", "subset", "model", "generator", "metric", "mean", "std", "runs", "stars", "bold"}
	if len(recs) == 0 || !slices.Equal(recs[0], want) {
		return nil, fmt.Errorf("report: %s is not a benchmark cells table (header %v)", path, want)
	}
	cells := make([]compare.Cell, 0, len(recs)-1)
	for i, r := range recs[1:] {
		mean, err1 := strconv.ParseFloat(r[5], 64)
		sd, err2 := strconv.ParseFloat(r[6], 64)
		runs, err3 := strconv.Atoi(r[7])
		stars, err4 := strconv.Atoi(r[8])
		if err := errors.Join(err1, err2, err3, err4); err != nil || (r[9] != "0" && r[9] != "1") {
			return nil, fmt.Errorf("report: %s, line %d: bad number (%v)", path, i+2, err)
		}
		cells = append(cells, compare.Cell{Dataset: r[0], Subset: r[1], Model: r[2], Generator: r[3], Metric: r[4],
			Mean: mean, SD: sd, Runs: runs, Stars: stars, Bold: r[9] == "1"})
	}
	return cells, nil
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("report: reading %s: %w", path, err)
	}
	return recs, nil
}

// Perf is one row of the model-performance CSV (`eccco perf`: perf.csv, paper/model-performance.csv).
type Perf struct {
	Dataset, Model                string
	Accuracy, Precision, F1       float64
	PaperAccuracy, PaperPrecision float64
	PaperF1                       float64
	TrainRows, TestRows, Epochs   int
	TrainSeconds                  float64
	HasPaper                      bool
}

// ReadPerformance reads the model-performance CSV that `eccco perf` writes.
func ReadPerformance(path string) ([]Perf, error) {
	recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	want := []string{"dataset", "model", "accuracy", "precision", "f1", "paper_accuracy", "paper_precision", "paper_f1", "train_rows", "test_rows", "epochs", "train_seconds"}
	if len(recs) == 0 || !slices.Equal(recs[0], want) {
		return nil, fmt.Errorf("report: %s is not a model-performance table (header %v)", path, want)
	}
	out := make([]Perf, 0, len(recs)-1)
	for i, r := range recs[1:] {
		var f [6]float64
		var errs []error
		for j, col := range []int{2, 3, 4, 5, 6, 7} {
			var e error
			f[j], e = strconv.ParseFloat(r[col], 64)
			errs = append(errs, e)
		}
		var n [3]int
		for j, col := range []int{8, 9, 10} {
			var e error
			n[j], e = strconv.Atoi(r[col])
			errs = append(errs, e)
		}
		secs, e := strconv.ParseFloat(r[11], 64)
		if err := errors.Join(append(errs, e)...); err != nil {
			return nil, fmt.Errorf("report: %s, line %d: %w", path, i+2, err)
		}
		p := Perf{Dataset: r[0], Model: r[1], Accuracy: f[0], Precision: f[1], F1: f[2], PaperAccuracy: f[3], PaperPrecision: f[4],
			PaperF1: f[5], TrainRows: n[0], TestRows: n[1], Epochs: n[2], TrainSeconds: secs}
		p.HasPaper = f[3] == f[3] // not NaN
		out = append(out, p)
	}
	return out, nil
}

// Stage is one line of reproduce.sh's stages.tsv: a stage, its wall time and its status.
type Stage struct {
	Name    string
	Seconds float64
	Status  string
	// CPUSeconds is the CPU time (user + system) of the stage's processes; HasCPU is false for a file of
	// an earlier reproduce.sh, which recorded wall time only.
	CPUSeconds float64
	HasCPU     bool
}

// ReadStages reads reproduce's stage-timing file (reproduce.ReadStagesTSV: stage, wall seconds, outcome
// and, where recorded, CPU seconds per line); a status is printed as reproduce writes it.
func ReadStages(path string) ([]Stage, error) {
	lines, err := reproduce.ReadStagesTSV(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	out := make([]Stage, len(lines))
	for i, l := range lines {
		out[i] = Stage{Name: l.Name, Seconds: l.WallSeconds, Status: l.Outcome().String(), CPUSeconds: l.CPUSeconds, HasCPU: l.HasCPU}
	}
	return out, nil
}

// Machine describes where the report was built: CPU model, cores, Go version, OS and architecture.
type Machine struct {
	CPU       string
	Cores     int
	GoVersion string
	OS, Arch  string
}

// ThisMachine describes the machine the program runs on (the CPU model from /proc/cpuinfo where there is
// one).
func ThisMachine() Machine {
	m := Machine{CPU: "unknown", Cores: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.Join(strings.Fields(v), " ")
				break
			}
		}
	}
	return m
}

// mdInline parses the inline Markdown of a committed file (code, bold, italic, links) into spans; local
// link targets are resolved against base (the file's directory) to absolute paths.
func mdInline(s, base string) Inline {
	var out Inline
	var plain strings.Builder
	flush := func() {
		if plain.Len() > 0 {
			out = append(out, T(plain.String()))
			plain.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				flush()
				out = append(out, C(s[i+1:i+1+j]))
				i += j + 2
				continue
			}
		case strings.HasPrefix(s[i:], "**"):
			if j := strings.Index(s[i+2:], "**"); j > 0 {
				flush()
				for _, sp := range mdInline(s[i+2:i+2+j], base) {
					if sp.Kind == Plain {
						sp.Kind = Bold
					}
					out = append(out, sp)
				}
				i += j + 4
				continue
			}
		case s[i] == '*' && i+1 < len(s) && s[i+1] != ' ':
			if j := strings.IndexByte(s[i+1:], '*'); j > 0 {
				flush()
				out = append(out, I(s[i+1:i+1+j]))
				i += j + 2
				continue
			}
		case s[i] == '[':
			if m := mdLink.FindStringSubmatch(s[i:]); m != nil {
				flush()
				url := m[2]
				if !strings.Contains(url, "://") && !strings.HasPrefix(url, "#") && base != "" {
					url = filepath.Join(base, filepath.FromSlash(url))
				}
				out = append(out, Span{Kind: Link, Text: strings.ReplaceAll(m[1], "`", ""), URL: url})
				i += len(m[0])
				continue
			}
		}
		plain.WriteByte(s[i])
		i++
	}
	flush()
	return out
}

var mdLink = regexp.MustCompile(`^\[([^\]]+)\]\(([^)\s]+)\)`)

// ReadFigureNotes reads the gallery's notes (figures/README.md): for each figure, the text after
// "`eccco figures --only NAME` · ", which says what matches the paper's figure and what does not.
func ReadFigureNotes(path string) (map[string]Inline, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: reading the figure notes: %w", err)
	}
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	notes := map[string]Inline{}
	for _, line := range strings.Split(string(raw), "\n") {
		m := figureNote.FindStringSubmatch(line)
		if m != nil {
			notes[m[1]] = mdInline(m[2], abs)
		}
	}
	return notes, nil
}

var figureNote = regexp.MustCompile("^`eccco figures --only ([a-z0-9-]+)` · (.+)$")

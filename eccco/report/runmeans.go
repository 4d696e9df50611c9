package report

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// RunMeansFile is the archive of a table set's per-run means (compare.RunMean), written beside its
// cells.csv: gzip-compressed CSV with the header runMeansHeader, one row per cell and run, the cells in
// cells.csv's order. It holds whole data sets: compare.AggregateRunMeans of a data set's run means
// rebuilds its cells, bit for bit. A data set whose cells were kept from a table set without run means is
// left out of it.
const RunMeansFile = "run-means.csv.gz"

var runMeansHeader = []string{"dataset", "subset", "model", "generator", "metric", "run", "n", "mean"}

// ErrRunMeansDisagree reports a run-means archive whose aggregate is not the cells.csv beside it.
var ErrRunMeansDisagree = errors.New("report: the per-run means do not give the cells beside them")

// EncodeRunMeans writes rms as RunMeansFile's bytes: the same run means give the same bytes (no
// timestamp or name in the gzip header).
func EncodeRunMeans(rms []compare.RunMean) ([]byte, error) {
	var raw bytes.Buffer
	w := csv.NewWriter(&raw)
	_ = w.Write(runMeansHeader)
	for _, r := range rms {
		_ = w.Write([]string{r.Dataset, r.Subset, r.Model, r.Generator, r.Metric, strconv.Itoa(r.Run), strconv.Itoa(r.N), benchmark.FormatFloat(r.Mean)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return gz.Bytes(), nil
}

// WriteRunMeans writes rms to path (RunMeansFile's format), atomically.
func WriteRunMeans(path string, rms []compare.RunMean) error {
	b, err := EncodeRunMeans(rms)
	if err != nil {
		return fmt.Errorf("report: encoding the run means: %w", err)
	}
	return atomicfile.WriteFile(path, b, 0o644)
}

// maxRunMeansBytes bounds the decompressed archive read: a larger one is refused before it fills memory.
const maxRunMeansBytes = 1 << 30

// ReadRunMeans reads a RunMeansFile. A wrong header, a bad number, a negative count or a count that does
// not match its mean (NaN exactly when n = 0) is an error naming the line.
func ReadRunMeans(path string) ([]compare.RunMean, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, maxRunMeansBytes+1))
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if len(raw) > maxRunMeansBytes {
		return nil, fmt.Errorf("report: %s: more than %d bytes decompressed", path, maxRunMeansBytes)
	}
	recs, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], runMeansHeader) {
		return nil, fmt.Errorf("report: %s is not a run-means archive (header %v)", path, runMeansHeader)
	}
	rms := make([]compare.RunMean, 0, len(recs)-1)
	for i, r := range recs[1:] {
		run, err1 := strconv.Atoi(r[5])
		n, err2 := strconv.Atoi(r[6])
		mean, err3 := strconv.ParseFloat(r[7], 64)
		if err := errors.Join(err1, err2, err3); err != nil || n < 0 || (n == 0) != math.IsNaN(mean) {
			return nil, fmt.Errorf("report: %s, line %d: bad run mean %v (%v)", path, i+2, r, err)
		}
		rms = append(rms, compare.RunMean{Dataset: r[0], Subset: r[1], Model: r[2], Generator: r[3], Metric: r[4], Run: run, N: n, Mean: mean})
	}
	return rms, nil
}

// byDataset splits cells or run means by data set, keeping their order; names lists the data sets in the
// order they first appear.
func byDataset[T any](xs []T, dataset func(T) string) (groups map[string][]T, names []string) {
	groups = map[string][]T{}
	for _, x := range xs {
		d := dataset(x)
		if _, ok := groups[d]; !ok {
			names = append(names, d)
		}
		groups[d] = append(groups[d], x)
	}
	return groups, names
}

// checkRunMeans reports whether the run means of each data set they hold aggregate to exactly that data
// set's cells (every field, in order), and returns those data sets (the archived ones); the error names
// the first cell that differs.
func checkRunMeans(cells []compare.Cell, rms []compare.RunMean, cellsPath, rmsPath string) ([]string, error) {
	cellsOf, _ := byDataset(cells, func(c compare.Cell) string { return c.Dataset })
	rmsOf, archived := byDataset(rms, func(r compare.RunMean) string { return r.Dataset })
	for _, d := range archived {
		got, want := compare.AggregateRunMeans(rmsOf[d]), cellsOf[d]
		if len(got) != len(want) {
			return nil, fmt.Errorf("%w: %s gives %d cells of %s, %s has %d", ErrRunMeansDisagree, rmsPath, len(got), d, cellsPath, len(want))
		}
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		for i, c := range want {
			g := got[i]
			if g.Subset != c.Subset || g.Model != c.Model || g.Generator != c.Generator || g.Metric != c.Metric ||
				!same(g.Mean, c.Mean) || !same(g.SD, c.SD) || g.Runs != c.Runs || g.Stars != c.Stars || g.Bold != c.Bold {
				return nil, fmt.Errorf("%w: cell (%s, %s, %s, %s, %s): %s has mean %v, sd %v, %d runs, stars %d, bold %t; %s gives (%s, %s, %s, %s) %v, %v, %d, %d, %t",
					ErrRunMeansDisagree, c.Dataset, c.Subset, c.Model, c.Generator, c.Metric, cellsPath, c.Mean, c.SD, c.Runs, c.Stars, c.Bold,
					rmsPath, g.Subset, g.Model, g.Generator, g.Metric, g.Mean, g.SD, g.Runs, g.Stars, g.Bold)
			}
		}
	}
	return archived, nil
}

// archivable keeps the run means of the data sets whose every cell they give (the others' run means are
// partial: some of their cells were kept from a table set without an archive).
func archivable(cells []compare.Cell, rms []compare.RunMean) []compare.RunMean {
	cellsOf, _ := byDataset(cells, func(c compare.Cell) string { return c.Dataset })
	rmsOf, names := byDataset(rms, func(r compare.RunMean) string { return r.Dataset })
	var out []compare.RunMean
	for _, d := range names {
		if len(compare.AggregateRunMeans(rmsOf[d])) == len(cellsOf[d]) {
			out = append(out, rmsOf[d]...)
		}
	}
	return out
}

// readTableCells reads a table set's cells.csv and, when RunMeansFile lies beside it, the run means,
// checked to aggregate to exactly the cells of the data sets they hold (nil where there is no archive).
func readTableCells(cellsPath string) ([]compare.Cell, []compare.RunMean, error) {
	cells, err := ReadCells(cellsPath)
	if err != nil {
		return nil, nil, err
	}
	rmsPath := filepath.Join(filepath.Dir(cellsPath), RunMeansFile)
	rms, err := ReadRunMeans(rmsPath)
	if errors.Is(err, os.ErrNotExist) {
		return cells, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := checkRunMeans(cells, rms, cellsPath, rmsPath); err != nil {
		return nil, nil, err
	}
	return cells, rms, nil
}

// archivedSets lists the data sets that run means hold, in their order.
func archivedSets(rms []compare.RunMean) []string {
	_, names := byDataset(rms, func(r compare.RunMean) string { return r.Dataset })
	return names
}

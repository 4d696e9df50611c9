package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
)

// Kept are cells written earlier (a committed cells.csv) that join a table set: a data set × model ×
// generator's cells come from the rows when the rows have it, from Kept otherwise (TableSetOptions.Kept).
type Kept struct {
	Cells []compare.Cell
	// From names them in the comparison's provenance.
	From string
	// Bounds are the calibration bounds written beside them (benchmark.BoundsFile; nil where none).
	Bounds benchmark.UncertaintyBounds
	// RunMeans are the cells' per-run means (RunMeansFile beside them, checked to give Cells; nil where
	// there is none).
	RunMeans []compare.RunMean
}

// keptQuote joins kept cells' file to the provenance its comparison quoted.
const keptQuote = ", whose comparison said: "

// ReadKept reads a cells.csv written earlier (ReadCells), the calibration bounds and the per-run means
// (RunMeansFile) beside it. From names
// the file and, when a comparison.md lies beside it, what that comparison says the cells were computed
// from (its whole "Results from:" line: cells kept more than once carry each layer, since a kept file may
// hold both cells its own run computed and cells it kept in turn), so that their provenance survives when
// the new tables replace that comparison.
func ReadKept(cellsPath string) (*Kept, error) {
	cells, rms, err := readTableCells(cellsPath)
	if err != nil {
		return nil, err
	}
	k := &Kept{Cells: cells, From: cellsPath, RunMeans: rms}
	if from := recordedProvenance(filepath.Join(filepath.Dir(cellsPath), "comparison.md")); from != "" {
		k.From = cellsPath + keptQuote + strings.TrimSpace(from)
	}
	k.Bounds, err = benchmark.ReadBounds(filepath.Join(filepath.Dir(cellsPath), benchmark.BoundsFile))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	return k, nil
}

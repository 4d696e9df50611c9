package benchmark

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

// Row is one counterfactual of the benchmark: the tidy result format (one row per counterfactual).
type Row struct {
	Dataset, Model, Generator string
	Run                       int
	Factual                   int // row index in the test split
	Target                    int
	metrics.Scores
	Iterations int
	Converged  bool
}

// Header is the CSV header of Row.
var Header = []string{"dataset", "model", "generator", "run", "factual", "target",
	"unfaithfulness", "implausibility", "uncertainty", "cost", "redundancy", "validity", "probability",
	"iterations", "converged"}

// FormatFloat spells a number as results.csv does: the shortest decimal that reads back exactly, NaN as "NaN".
func FormatFloat(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func (r Row) record() []string {
	return []string{r.Dataset, r.Model, r.Generator, strconv.Itoa(r.Run), strconv.Itoa(r.Factual), strconv.Itoa(r.Target),
		FormatFloat(r.Unfaithfulness), FormatFloat(r.Implausibility), FormatFloat(r.Uncertainty), FormatFloat(r.Cost), FormatFloat(r.Redundancy), b01(r.Valid), FormatFloat(r.Probability),
		strconv.Itoa(r.Iterations), b01(r.Converged)}
}

// EncodeCSV writes rows with the header.
func EncodeCSV(w io.Writer, rows []Row) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return err
	}
	for _, r := range rows {
		if err := cw.Write(r.record()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSVAtomic writes rows to path (permission 0644) through a temporary file in the same directory
// and a rename (package internal/atomicfile), so that path either holds the complete result or does not
// exist.
func WriteCSVAtomic(path string, rows []Row) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error { return EncodeCSV(w, rows) })
}

// ReadCSV reads rows written by EncodeCSV. An empty or header-only file is an error wrapping ErrEmpty.
func ReadCSV(path string) ([]Row, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading results: %w", err)
	}
	return decodeCSV(path, raw)
}

func parseRecord(rec []string) (Row, error) {
	if len(rec) != len(Header) {
		return Row{}, fmt.Errorf("%d fields, want %d", len(rec), len(Header))
	}
	var r Row
	var err error
	ints := []*int{&r.Run, &r.Factual, &r.Target}
	for i, p := range ints {
		if *p, err = strconv.Atoi(rec[3+i]); err != nil {
			return Row{}, fmt.Errorf("%s: %w", Header[3+i], err)
		}
	}
	floats := []*float64{&r.Unfaithfulness, &r.Implausibility, &r.Uncertainty, &r.Cost, &r.Redundancy}
	for i, p := range floats {
		if *p, err = strconv.ParseFloat(rec[6+i], 64); err != nil {
			return Row{}, fmt.Errorf("%s: %w", Header[6+i], err)
		}
	}
	if r.Probability, err = strconv.ParseFloat(rec[12], 64); err != nil {
		return Row{}, fmt.Errorf("probability: %w", err)
	}
	if r.Iterations, err = strconv.Atoi(rec[13]); err != nil {
		return Row{}, fmt.Errorf("iterations: %w", err)
	}
	r.Dataset, r.Model, r.Generator = rec[0], rec[1], rec[2]
	r.Valid, r.Converged = rec[11] == "1", rec[14] == "1"
	return r, nil
}

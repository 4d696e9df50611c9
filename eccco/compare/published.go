package compare

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// Published is one number of the paper's result tables (paper/published-results.csv: dataset, subset,
// model, generator, metric, mean, std, stars, bold, decimals, source).
type Published struct {
	Dataset, Subset, Model, Generator, Metric string
	Mean, SD                                  float64
	// Decimals is how many decimals the paper printed the cell with: 3 for the 20 cells of Table 2
	// (MNIST's unfaithfulness and implausibility of valid counterfactuals, tab:results-vision), 2 for
	// the appendix tables' (AppendixDecimals; 0, in a table without the column, means the same). Every
	// rounding-aware rule reads it (precision.go).
	Decimals int
	// Source is where in the paper's LaTeX the cell was copied from: "appendix" (the appendix tables),
	// or "body.tex:LINE" (partials/body.tex, the main text's tables), "" in a table without the column.
	Source string
}

// ReadPublished reads the paper's published numbers. The columns decimals and source are optional (a
// table without them is the appendix's, two decimals).
func ReadPublished(path string) ([]Published, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading published results: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(recs) < 1 || len(recs[0]) < 7 || recs[0][0] != "dataset" {
		return nil, fmt.Errorf("reading %s: not the published results table", path)
	}
	decCol, srcCol := slices.Index(recs[0], "decimals"), slices.Index(recs[0], "source")
	out := make([]Published, 0, len(recs)-1)
	for i, r := range recs[1:] {
		mean, err1 := strconv.ParseFloat(r[5], 64)
		sd, err2 := strconv.ParseFloat(r[6], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("reading %s, line %d: bad mean or std", path, i+2)
		}
		p := Published{Dataset: r[0], Subset: r[1], Model: r[2], Generator: r[3], Metric: r[4], Mean: mean, SD: sd}
		if decCol >= 0 {
			d, err := strconv.Atoi(r[decCol])
			if err != nil || d < 1 || d > 6 {
				return nil, fmt.Errorf("reading %s, line %d: bad decimals %q", path, i+2, r[decCol])
			}
			p.Decimals = d
		}
		if srcCol >= 0 {
			p.Source = r[srcCol]
		}
		out = append(out, p)
	}
	return out, nil
}

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

// PublishedCells turns the published numbers into cells, so that CompareModes can set them beside ours.
func PublishedCells(pub []Published) []Cell {
	out := make([]Cell, 0, len(pub))
	for _, p := range pub {
		out = append(out, Cell{Dataset: p.Dataset, Subset: p.Subset, Model: p.Model, Generator: p.Generator,
			Metric: p.Metric, Mean: p.Mean, SD: p.SD})
	}
	return out
}

// PrintedDecimals returns, for a cell's data set, subset, model, generator and metric, how many decimals
// the paper printed it with (Published.Decimals; AppendixDecimals for a cell the paper does not have).
func PrintedDecimals(pub []Published) func(c Cell) int {
	m := map[[5]string]int{}
	for _, p := range pub {
		m[[5]string{p.Dataset, p.Subset, p.Model, p.Generator, p.Metric}] = Printed(p.Decimals)
	}
	return func(c Cell) int {
		if d, ok := m[[5]string{c.Dataset, c.Subset, c.Model, c.Generator, c.Metric}]; ok {
			return d
		}
		return AppendixDecimals
	}
}

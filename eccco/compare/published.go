package compare

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// Published is one number of the paper's result tables (published/results.csv: dataset, subset, model,
// generator, metric, mean, std, stars, bold).
type Published struct {
	Dataset, Subset, Model, Generator, Metric string
	Mean, SD                                  float64
}

// ReadPublished reads the paper's published numbers.
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
	out := make([]Published, 0, len(recs)-1)
	for i, r := range recs[1:] {
		mean, err1 := strconv.ParseFloat(r[5], 64)
		sd, err2 := strconv.ParseFloat(r[6], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("reading %s, line %d: bad mean or std", path, i+2)
		}
		out = append(out, Published{r[0], r[1], r[2], r[3], r[4], mean, sd})
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

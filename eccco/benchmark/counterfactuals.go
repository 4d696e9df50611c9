package benchmark

import (
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// Counterfactuals are the counterfactuals of one unit, kept beside its metrics (CounterfactualsPath): row
// i is the counterfactual of factual Factuals[i] (a test row) towards Targets[i], in the space the search
// and the metrics use (the paper's tabular sets standardised: data.Split.Standardizer maps them back to
// the data's units).
type Counterfactuals struct {
	Features         []string
	Factuals, Target []int
	// X holds the counterfactuals, row-major (len(Factuals)·len(Features) values).
	X []float32
}

// CounterfactualsPath is where a unit's counterfactuals are written: beside UnitPath, as a gzip-compressed
// CSV (columns factual, target and one per feature; each value the shortest decimal that reads back as
// the same float32).
func (r *Runner) CounterfactualsPath(u Unit) string {
	return strings.TrimSuffix(r.UnitPath(u), ".csv") + counterfactualsSuffix
}

const counterfactualsSuffix = ".cf.csv.gz"

// writeCounterfactuals writes c to path atomically (gzip without a timestamp: the same counterfactuals
// give the same bytes).
func writeCounterfactuals(path string, c Counterfactuals) error {
	d := len(c.Features)
	if len(c.X) != len(c.Factuals)*d || len(c.Target) != len(c.Factuals) {
		return fmt.Errorf("benchmark: %d counterfactual values for %d factuals of %d features", len(c.X), len(c.Factuals), d)
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
		if err != nil {
			return err
		}
		cw := csv.NewWriter(zw)
		if err := cw.Write(append([]string{"factual", "target"}, c.Features...)); err != nil {
			return err
		}
		rec := make([]string, d+2)
		for i, f := range c.Factuals {
			rec[0], rec[1] = strconv.Itoa(f), strconv.Itoa(c.Target[i])
			for j, v := range c.X[i*d : (i+1)*d] {
				rec[2+j] = strconv.FormatFloat(float64(v), 'g', -1, 32)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		return zw.Close()
	})
}

// ReadCounterfactuals reads a unit's counterfactuals (CounterfactualsPath).
func ReadCounterfactuals(path string) (Counterfactuals, error) {
	f, err := os.Open(path)
	if err != nil {
		return Counterfactuals{}, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return Counterfactuals{}, fmt.Errorf("%s: %w", path, err)
	}
	recs, err := csv.NewReader(zr).ReadAll()
	if err != nil {
		return Counterfactuals{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 || len(recs[0]) < 3 || recs[0][0] != "factual" || recs[0][1] != "target" {
		return Counterfactuals{}, fmt.Errorf("%s: not a counterfactuals file (header factual,target,features…)", path)
	}
	c := Counterfactuals{Features: recs[0][2:]}
	for i, r := range recs[1:] {
		fa, err1 := strconv.Atoi(r[0])
		ta, err2 := strconv.Atoi(r[1])
		if err1 != nil || err2 != nil {
			return Counterfactuals{}, fmt.Errorf("%s: line %d: factual %q, target %q are not row and class numbers", path, i+2, r[0], r[1])
		}
		c.Factuals, c.Target = append(c.Factuals, fa), append(c.Target, ta)
		for j, s := range r[2:] {
			v, err := strconv.ParseFloat(s, 32)
			if err != nil {
				return Counterfactuals{}, fmt.Errorf("%s: line %d, %s: %q is not a number", path, i+2, c.Features[j], s)
			}
			c.X = append(c.X, float32(v))
		}
	}
	return c, nil
}

package experiment

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
)

const exampleDir = "../../examples/onnx-credit"

func openExample(t *testing.T) *Custom {
	t.Helper()
	s, err := data.ReadSchema(filepath.Join(exampleDir, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := data.ReadTable(filepath.Join(exampleDir, "credit.csv"), s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	clf, err := models.FromONNX(b, filepath.Join(exampleDir, "credit.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenCustom(tb, clf, CustomOptions{Backend: b, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkConstraints checks every counterfactual against the schema by hand, independently of
// Schema.Violations: one category per group, immutables equal, increase-only not decreased, ordinal
// levels whole, values within the bounds.
func checkConstraints(t *testing.T, c *Custom, x *CustomExplanation) {
	t.Helper()
	s := c.Table.Schema
	d := s.Width()
	lo, hi := c.Bounds()
	for i := range x.Rows {
		cf, f := x.Counterfactuals[i*d:(i+1)*d], x.Factuals[i*d:(i+1)*d]
		for fi, o := range s.Offsets() {
			feat := s.Features[fi]
			v, v0 := cf[o:o+feat.Width()], f[o:o+feat.Width()]
			if feat.Type == data.Categorical {
				ones, zeros := 0, 0
				for _, e := range v {
					if e == 1 {
						ones++
					} else if e == 0 {
						zeros++
					}
				}
				if ones != 1 || zeros != len(v)-1 {
					t.Errorf("%s row %d: %s is %v, not one category", x.Generator, x.Rows[i], feat.Name, v)
				}
			}
			if feat.Type == data.Ordinal && v[0] != float32(math.Round(float64(v[0]))) {
				t.Errorf("%s row %d: %s = %v is not a level", x.Generator, x.Rows[i], feat.Name, v[0])
			}
			for j := range v {
				switch feat.Mutability() {
				case data.MutableNone:
					if v[j] != v0[j] {
						t.Errorf("%s row %d: immutable %s changed %v → %v", x.Generator, x.Rows[i], feat.Name, v0, v)
					}
				case data.MutableIncrease:
					if v[j] < v0[j] {
						t.Errorf("%s row %d: increase-only %s went %v → %v", x.Generator, x.Rows[i], feat.Name, v0[j], v[j])
					}
				case data.MutableDecrease:
					if v[j] > v0[j] {
						t.Errorf("%s row %d: decrease-only %s went %v → %v", x.Generator, x.Rows[i], feat.Name, v0[j], v[j])
					}
				}
				if v[j] < lo[o+j] || v[j] > hi[o+j] {
					t.Errorf("%s row %d: %s = %v outside [%v, %v]", x.Generator, x.Rows[i], feat.Name, v[j], lo[o+j], hi[o+j])
				}
			}
		}
		if len(x.Violations[i]) != 0 {
			t.Errorf("%s row %d: violations %v", x.Generator, x.Rows[i], x.Violations[i])
		}
		if x.Scores[i].Valid != (x.Predicted[i] == x.Targets[i]) {
			t.Errorf("%s row %d: valid %v but predicted %d for target %d", x.Generator, x.Rows[i], x.Scores[i].Valid, x.Predicted[i], x.Targets[i])
		}
	}
}

func TestCustomExplainKeepsConstraints(t *testing.T) {
	if testing.Short() {
		t.Skip("searches an ONNX model's counterfactuals (seconds)")
	}
	c := openExample(t)
	rows := []int{0, 1, 2, 3, 4, 5, 6, 7}
	gens, err := ParseGenerators("ECCCo", "Wachter", "Schut")
	if err != nil {
		t.Fatal(err)
	}
	xs, err := c.Explain(context.Background(), rows, -1, gens...)
	if err != nil {
		t.Fatal(err)
	}
	valid := 0
	for _, x := range xs {
		checkConstraints(t, c, x)
		for i := range x.Rows {
			if x.Scores[i].Valid {
				valid++
			}
		}
	}
	t.Logf("%d of %d counterfactuals valid", valid, len(rows)*len(xs))
	if valid == 0 {
		t.Errorf("no valid counterfactual")
	}

	// Written to CSV in the data's units and read back, they score as the search scored them.
	var buf bytes.Buffer
	if err := WriteCustomCSV(&buf, c.Table.Schema, c.Table.Data.ClassNames, xs...); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cf.csv")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cf, back, err := data.ReadRows(path, c.Table.Schema)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := c.Score(context.Background(), back, cf, -1)
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	for _, x := range xs {
		for _, s := range x.Scores {
			want = append(want, s.Unfaithfulness, s.Implausibility, s.Uncertainty, s.Cost, s.Redundancy, s.Probability)
		}
	}
	var got []float64
	for _, s := range sc.Scores {
		got = append(got, s.Unfaithfulness, s.Implausibility, s.Uncertainty, s.Cost, s.Redundancy, s.Probability)
	}
	if !slices.Equal(got, want) {
		t.Errorf("scores read back differ:\n got %v\nwant %v", got, want)
	}
}

// TestCustomEveryGenerator runs every generator of the paper on the example: each keeps the constraints.
func TestCustomEveryGenerator(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a VAE and searches with ten generators")
	}
	c := openExample(t)
	xs, err := c.Explain(context.Background(), []int{10, 11, 12, 13}, -1, PaperGenerators()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		checkConstraints(t, c, x)
		n := 0
		for _, s := range x.Scores {
			if s.Valid {
				n++
			}
		}
		t.Logf("%s: %d of %d valid, iterations %v", x.Generator, n, len(x.Rows), x.Iterations)
	}
}

// TestOpenCustomMismatch: a model whose input width or class count differs from the schema's is an error.
func TestOpenCustomMismatch(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenCustomFiles("../models/testdata/binary-sigmoid.onnx", filepath.Join(exampleDir, "credit.csv"), filepath.Join(exampleDir, "schema.json"), CustomOptions{Backend: b})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "reads 3 inputs, the schema describes 35") {
		t.Errorf("width: err = %v", err)
	}
	s, err := data.ParseSchema([]byte(`{"target": "y", "features": [{"name": "a", "type": "numeric"}, {"name": "b", "type": "numeric"}, {"name": "c", "type": "numeric"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	tb := &data.Table{Schema: s, Data: &data.Dataset{Name: "t", X: make([]float32, 9), Y: []int{0, 1, 2}, FeatureNames: s.Columns(), ClassNames: []string{"a", "b", "c"}}}
	clf, err := models.FromONNX(b, "../models/testdata/binary-sigmoid.onnx")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCustom(tb, clf, CustomOptions{Backend: b}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "gives 2 classes, the data has 3") {
		t.Errorf("classes: err = %v", err)
	}
	c := openExample(t)
	for _, bad := range []string{"maybe", "2", "-1"} {
		if _, err := c.ParseTarget(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("target %q: err = %v", bad, err)
		}
	}
	if _, err := c.Explain(context.Background(), []int{1000}, -1, Generator{Name: "Wachter"}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("row 1000: err = %v", err)
	}
	if _, err := c.Score(context.Background(), []int{0}, []float32{1, 2}, -1); !errors.Is(err, ErrInvalid) {
		t.Errorf("short counterfactual: err = %v", err)
	}
}

// Custom prepares the generators' ingredients again only when a generator needs one that was not
// prepared: Wachter prepares the calibration, which ECCCo then reuses; ECCCo-L1 adds the samples and
// ECCCo+ the PCA, REVISE the VAE, each preparing again (for the generators of every call so far); a
// call of generators whose ingredients are all there prepares nothing.
func TestCustomPreparesOnlyWhatIsNew(t *testing.T) {
	if testing.Short() {
		t.Skip("trains REVISE's VAE")
	}
	c := openExample(t)
	prepared := 0
	c.opts.Logf = func(format string, args ...any) {
		if strings.HasPrefix(format, "preparing the generators' ingredients") {
			prepared++
		}
		t.Logf(format, args...)
	}
	steps := []struct {
		gens     []catalogue.Name
		prepares bool
		check    func(in counterfactual.Ingredients) bool
	}{
		{[]catalogue.Name{catalogue.Wachter}, true, func(in counterfactual.Ingredients) bool { return in.Calibrated != nil && in.Samples == nil }},
		{[]catalogue.Name{catalogue.ECCCo}, false, func(in counterfactual.Ingredients) bool { return in.Calibrated != nil && in.Samples == nil }},
		{[]catalogue.Name{catalogue.ECCCoL1}, true, func(in counterfactual.Ingredients) bool { return in.Samples != nil && in.PCA == nil }},
		{[]catalogue.Name{catalogue.ECCCoPlus}, true, func(in counterfactual.Ingredients) bool { return in.Samples != nil && in.PCA != nil && in.VAE == nil }},
		{[]catalogue.Name{catalogue.REVISE}, true, func(in counterfactual.Ingredients) bool { return in.Samples != nil && in.PCA != nil && in.VAE != nil }},
		{[]catalogue.Name{catalogue.ECCCo, catalogue.Wachter, catalogue.ECCCoL1, catalogue.REVISE}, false, func(in counterfactual.Ingredients) bool {
			return in.Samples != nil && in.PCA != nil && in.VAE != nil
		}},
	}
	var last counterfactual.Ingredients
	for i, st := range steps {
		var gens []Generator
		for _, n := range st.gens {
			gens = append(gens, Generator{Name: string(n)})
		}
		before := prepared
		in, err := c.ingredients(context.Background(), gens)
		if err != nil {
			t.Fatalf("step %d %v: %v", i, st.gens, err)
		}
		if got := prepared > before; got != st.prepares {
			t.Errorf("step %d %v: prepared again %v, want %v", i, st.gens, got, st.prepares)
		}
		if !st.check(in) {
			t.Errorf("step %d %v: ingredients calibrated %v, samples %v, PCA %v, VAE %v", i, st.gens, in.Calibrated != nil, in.Samples != nil, in.PCA != nil, in.VAE != nil)
		}
		if !st.prepares && i > 0 && in.Calibrated != last.Calibrated {
			t.Errorf("step %d %v: nothing new, but another calibration", i, st.gens)
		}
		last = in
	}
}

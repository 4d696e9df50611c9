package conformal

import (
	"slices"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// InductiveSplit is ConformalPrediction.jl's unshuffled partition: the first round(ratio·N) rows (half to
// even) fit, the rest calibrate, both in file order. Rows 0 … 6 tagged by their index: 3.5 rounds to 4.
func TestInductiveSplitKeepsFileOrder(t *testing.T) {
	d := &data.Dataset{FeatureNames: []string{"i"}, ClassNames: []string{"a", "b"}}
	for i := range 7 {
		d.X = append(d.X, float32(i))
		d.Y = append(d.Y, i%2)
	}
	fit, cal, err := InductiveSplit(d, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fit.X, []float32{0, 1, 2, 3}) || !slices.Equal(fit.Y, []int{0, 1, 0, 1}) {
		t.Errorf("fit rows %v %v, want the first four in order", fit.X, fit.Y)
	}
	if !slices.Equal(cal.X, []float32{4, 5, 6}) || !slices.Equal(cal.Y, []int{0, 1, 0}) {
		t.Errorf("calibration rows %v %v, want the last three in order", cal.X, cal.Y)
	}
	d.X, d.Y = d.X[:5], d.Y[:5] // 2.5 rounds to 2
	if fit, _, _ := InductiveSplit(d, 0.5); fit.N() != 2 {
		t.Errorf("5 rows: %d fit rows, want 2 (Julia's round half to even)", fit.N())
	}
	for _, r := range []float64{0, 1, -0.5} {
		if _, _, err := InductiveSplit(d, r); err == nil {
			t.Errorf("train ratio %v: no error", r)
		}
	}
}

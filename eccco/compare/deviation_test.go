package compare

import (
	"math"
	"testing"
)

// A deviation inside ±3 is a cell within max(3 sd, 0.015), and one outside is a miss (hand-made cells).
func TestDeviationBandIsTheTolerance(t *testing.T) {
	if DeviationBand != 3 {
		t.Fatalf("band %v, want 3", DeviationBand)
	}
	for _, c := range []struct {
		ours, paper, sd, want float64
	}{
		{0.30, 0.20, 0.05, 2},    // 0.10 / 0.05
		{0.21, 0.20, 0, 2},       // 0.01 / 0.005 (a published sd printed as 0.00)
		{0.10, 0.20, 0.02, -5},   // −0.10 / 0.02
		{12.5, 2.5, 0.004, 2000}, // the floor, not 0.004
		{0.215, 0.20, 0.001, 3},  // on the floor's edge: within
	} {
		r := ComparedCell{Cell: Cell{Mean: c.ours}, Paper: c.paper, PaperSD: c.sd}
		d := r.Deviation()
		if math.Abs(d-c.want) > 1e-9 {
			t.Errorf("%v vs %v ± %v: deviation %v, want %v", c.ours, c.paper, c.sd, d, c.want)
		}
		if within := math.Abs(d) <= DeviationBand+1e-9; within != WithinRounding(c.ours, c.paper, c.sd, 0) {
			t.Errorf("%v vs %v ± %v: |%v| ≤ 3 is %v, WithinRounding is not", c.ours, c.paper, c.sd, d, within)
		}
	}
}

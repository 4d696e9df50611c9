package counterfactual

import (
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// TestFitPCAFewRows: two rows of three features have at most two principal components; asking for three is
// an error naming the rows, two is a fit whose first direction is the rows' difference (1, 2, 2)/3.
func TestFitPCAFewRows(t *testing.T) {
	ds := &data.Dataset{Name: "t", X: []float32{0, 0, 0, 1, 2, 2}, Y: []int{0, 1}, FeatureNames: []string{"a", "b", "c"}, ClassNames: []string{"0", "1"}}
	if _, err := FitPCA(ds, 3); err == nil || !strings.Contains(err.Error(), "from 2 rows") {
		t.Errorf("3 components of 2 rows: err = %v", err)
	}
	p, err := FitPCA(ds, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Variances) != 2 || p.LatentDim() != 2 {
		t.Fatalf("variances %v, latent %d", p.Variances, p.LatentDim())
	}
	// the variance along the difference: the rows are ±(0.5, 1, 1) from the mean, |·|² = 2.25, over N − 1 = 1.
	if v := p.Variances[0]; v < 4.5-1e-6 || v > 4.5+1e-6 {
		t.Errorf("first variance %g, want 4.5", v)
	}
	for j, want := range []float32{1.0 / 3, 2.0 / 3, 2.0 / 3} {
		if got := p.Components[j*2]; abs32(abs32(got)-want) > 1e-5 {
			t.Errorf("first direction [%d] = %g, want ±%g", j, got, want)
		}
	}
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}

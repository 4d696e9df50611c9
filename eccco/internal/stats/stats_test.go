package stats

import (
	"math"
	"testing"
)

// The expected values are NumPy's: numpy.median([3, 1, 2]) = 2.0, numpy.median([4, 1, 3, 2]) = 2.5,
// numpy.median([-1.5, 7]) = 2.75; numpy.nanmedian([nan, 5, 1]) = 3.0.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{-1.5, 7}, 2.75},
		{[]float64{9}, 9},
	} {
		in := append([]float64(nil), c.v...)
		if got := Median(c.v); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", in, got, c.want)
		}
		for i := range in {
			if in[i] != c.v[i] {
				t.Fatalf("Median reordered its input: %v, was %v", c.v, in)
			}
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
	if got := MedianNonNaN([]float64{math.NaN(), 5, 1}); got != 3 {
		t.Errorf("MedianNonNaN(NaN, 5, 1) = %v, want 3", got)
	}
	if got := MedianNonNaN([]float64{math.NaN()}); !math.IsNaN(got) {
		t.Errorf("MedianNonNaN(NaN) = %v, want NaN", got)
	}
}

// Package stats holds the small order statistics that several packages need, defined once.
package stats

import (
	"math"
	"slices"
)

// Median returns the median of v: the middle value of the sorted values, or the mean of the two middle
// ones when len(v) is even, as Julia's and NumPy's median do. v is not modified. NaNs sort first (as
// slices.Sort puts them), so they shift the middle rather than propagate; use MedianNonNaN to leave them
// out. The median of no values is NaN.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MedianNonNaN returns the Median of the values of v that are not NaN; NaN if there are none.
func MedianNonNaN(v []float64) float64 {
	w := make([]float64, 0, len(v))
	for _, x := range v {
		if !math.IsNaN(x) {
			w = append(w, x)
		}
	}
	return Median(w)
}

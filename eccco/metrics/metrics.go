package metrics

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
)

// Distance measures how far apart two rows of features are.
type Distance func(a, b []float32) float64

// Euclidean is the L2 distance, the paper's distance for tabular and synthetic data.
func Euclidean(a, b []float32) float64 {
	var s float64
	for i, v := range a {
		d := float64(v - b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// ImageDissimilarity returns the paper's distance for height×width greyscale images in [−1, 1]: the
// structural dissimilarity (1 − SSIM)/2 of StructuralDissimilarity. Rows of the wrong size give NaN.
func ImageDissimilarity(height, width int) Distance {
	return func(a, b []float32) float64 {
		v, err := StructuralDissimilarity(a, b, height, width)
		if err != nil {
			return math.NaN()
		}
		return v
	}
}

// ImageDissimilarityUncropped is ImageDissimilarity with the SSIM map averaged over every pixel instead
// of the interior (StructuralDissimilarityUncropped): the distance of the authors' code, which calls
// Julia's assess_ssim with its default crop = false (authors'-code compatibility).
func ImageDissimilarityUncropped(height, width int) Distance {
	return func(a, b []float32) float64 {
		v, err := StructuralDissimilarityUncropped(a, b, height, width)
		if err != nil {
			return math.NaN()
		}
		return v
	}
}

// MeanDistance is Eq. (impl) and Eq. (faith) of the paper: the mean distance from x to the rows of set
// (row-major, rows of len(x) features). With nearest > 0 only the nearest rows count (the authors'
// implausibility averages over the 100 nearest target-class neighbours).
func MeanDistance(x, set []float32, dist Distance, nearest int) (float64, error) {
	d := len(x)
	if d == 0 || len(set) == 0 || len(set)%d != 0 {
		return 0, fmt.Errorf("mean distance: %d values are not whole rows of %d features", len(set), d)
	}
	n := len(set) / d
	ds := make([]float64, n)
	for i := range n {
		ds[i] = dist(x, set[i*d:(i+1)*d])
	}
	return meanOf(ds, nearest), nil
}

// meanOf is MeanDistance's mean of the distances ds (reordered when nearest > 0): with nearest, the
// mean of the nearest smallest, summed in ascending order, as sorting ds and summing its first nearest
// would (bit for bit; a NaN distance gives NaN, as sort.Float64s puts NaNs first).
func meanOf(ds []float64, nearest int) float64 {
	if nearest > 0 && nearest < len(ds) {
		for _, v := range ds {
			if math.IsNaN(v) {
				return math.NaN()
			}
		}
		selectSmallest(ds, nearest)
		ds = ds[:nearest]
		sort.Float64s(ds)
	}
	var s float64
	for _, v := range ds {
		s += v
	}
	return s / float64(len(ds))
}

// Cost is the L1 distance ‖x′ − x‖₁ between counterfactual and factual.
func Cost(cf, factual []float32) float64 {
	var s float64
	for i, v := range cf {
		s += math.Abs(float64(v - factual[i]))
	}
	return s
}

// DefaultRedundancyTol is the change below which a feature counts as unperturbed.
const DefaultRedundancyTol = 1e-5

// Redundancy is the share of features that the counterfactual leaves unperturbed, |x′_j − x_j| < tol
// (the paper's appendix: higher is better).
func Redundancy(cf, factual []float32, tol float64) float64 {
	same := 0
	for i, v := range cf {
		if math.Abs(float64(v-factual[i])) < tol {
			same++
		}
	}
	return float64(same) / float64(len(cf))
}

// selectSmallest reorders v (no NaNs) so that its k smallest values come first, in no particular order
// (0 < k < len(v)): quickselect with a median-of-three pivot, O(len(v)) on average, where a full sort is
// O(len(v)·log len(v)); after 2·log₂ len(v) rounds it sorts what is left instead.
func selectSmallest(v []float64, k int) {
	lo, hi := 0, len(v)-1 // the k-th smallest (index k−1) lies in v[lo..hi]
	budget := 2 * bits.Len(uint(len(v)))
	for lo < hi {
		if budget == 0 {
			sort.Float64s(v[lo : hi+1])
			return
		}
		budget--
		// Median of three to v[hi], then Lomuto's partition around it.
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[mid] < v[hi] {
			v[mid], v[hi] = v[hi], v[mid]
		}
		pivot, store := v[hi], lo
		for i := lo; i < hi; i++ {
			if v[i] < pivot {
				v[i], v[store] = v[store], v[i]
				store++
			}
		}
		v[store], v[hi] = v[hi], v[store]
		switch {
		case store == k-1:
			return
		case store < k-1:
			lo = store + 1
		default:
			hi = store - 1
		}
	}
}

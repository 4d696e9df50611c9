package data

import (
	"math"
	"math/rand/v2"
)

// The three synthetic generators follow MLJBase.jl's make_blobs, make_moons and make_circles (the paper's
// code called those), with the parameters of data.md. Class 0 always gets floor(n/2) points and class 1
// the rest, as in MLJBase; rows are shuffled at the end, as MLJBase does by default.

var synthFeatures = []string{"x1", "x2"}

func checkSynth(name string, n int, rng *rand.Rand) error {
	if n < 2 {
		return markf(ErrInvalidOption, "generating %s: need at least 2 points, got %d", name, n)
	}
	if rng == nil {
		return markf(ErrInvalidOption, "generating %s: nil random source (use data.NewRand(seed))", name)
	}
	return nil
}

func checkNoise(name string, noise float64) error {
	if !(noise >= 0) || math.IsInf(noise, 0) {
		return markf(ErrInvalidOption, "generating %s: noise must be a finite number ≥ 0, got %v", name, noise)
	}
	return nil
}

// newSynth allocates an n-row, two-feature binary data set whose first n/2 rows are class 0.
func newSynth(name string, n int) *Dataset {
	d := &Dataset{Name: name, X: make([]float32, 2*n), Y: make([]int, n), FeatureNames: synthFeatures, ClassNames: binaryNames}
	for i := n / 2; i < n; i++ {
		d.Y[i] = 1
	}
	return d
}

// LinearlySeparable draws the paper's "Linearly Separable" data: two isotropic Gaussian blobs with
// standard deviation 0.1 whose centres are drawn uniformly in [−1, 1]² (MLJBase make_blobs with
// centers = 2, cluster_std = 0.1, center_box = −1 => 1). Blob 1 is class 0 (floor(n/2) points), blob 2 is
// class 1. The paper used n = 1,250. The two centres are drawn first, then the points; rows are shuffled.
func LinearlySeparable(n int, rng *rand.Rand) (*Dataset, error) {
	const name = "linearly-separable"
	if err := checkSynth(name, n, rng); err != nil {
		return nil, err
	}
	var centres [2][2]float64
	for c := range centres {
		for j := range centres[c] {
			centres[c][j] = 2*rng.Float64() - 1
		}
	}
	d := newSynth(name, n)
	for i := range n {
		c := centres[d.Y[i]]
		d.X[2*i] = float32(c[0] + 0.1*rng.NormFloat64())
		d.X[2*i+1] = float32(c[1] + 0.1*rng.NormFloat64())
	}
	return d.Shuffled(rng), nil
}

// Moons draws two interleaved half circles with MLJBase's make_moons conventions: angles θ uniform on
// (0, π); class 0 is the upper moon (cos θ, sin θ) with floor(n/2) points, class 1 the lower moon
// (1 − cos θ, 0.3 − sin θ), i.e. shifted by (1.0, 0.3) (scikit-learn shifts by (1, 0.5) and spaces the
// angles evenly); then N(0, noise²) is added to both coordinates of every point. The paper used n = 3,125
// and noise 0.1.
func Moons(n int, noise float64, rng *rand.Rand) (*Dataset, error) {
	const name = "moons"
	if err := checkSynth(name, n, rng); err != nil {
		return nil, err
	}
	if err := checkNoise(name, noise); err != nil {
		return nil, err
	}
	d := newSynth(name, n)
	for i := range n {
		theta := math.Pi * rng.Float64()
		x, y := math.Cos(theta), math.Sin(theta)
		if d.Y[i] == 1 {
			x, y = 1-x, 0.3-y
		}
		d.X[2*i] = float32(x + noise*rng.NormFloat64())
		d.X[2*i+1] = float32(y + noise*rng.NormFloat64())
	}
	return d.Shuffled(rng), nil
}

// Circles draws two concentric circles with MLJBase's make_circles conventions: angles θ uniform on
// (0, 2π); class 0 is the inner circle of radius factor (floor(n/2) points), class 1 the unit circle; then
// N(0, noise²) is added to both coordinates of every point. factor must lie in (0, 1). The paper used
// n = 1,250, noise 0.05 and factor 0.5.
func Circles(n int, noise, factor float64, rng *rand.Rand) (*Dataset, error) {
	const name = "circles"
	if err := checkSynth(name, n, rng); err != nil {
		return nil, err
	}
	if err := checkNoise(name, noise); err != nil {
		return nil, err
	}
	if !(factor > 0 && factor < 1) {
		return nil, markf(ErrInvalidOption, "generating %s: factor must lie strictly between 0 and 1, got %v", name, factor)
	}
	d := newSynth(name, n)
	for i := range n {
		theta := 2 * math.Pi * rng.Float64()
		r := 1.0
		if d.Y[i] == 0 {
			r = factor
		}
		d.X[2*i] = float32(r*math.Cos(theta) + noise*rng.NormFloat64())
		d.X[2*i+1] = float32(r*math.Sin(theta) + noise*rng.NormFloat64())
	}
	return d.Shuffled(rng), nil
}

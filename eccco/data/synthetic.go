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

// AuthorsLinearlySeparableSeed is CounterfactualExplanations.jl's data_seed (src/data/Data.jl:14), with
// which load_blobs seeded Julia's global RNG before drawing the blobs.
const AuthorsLinearlySeparableSeed = 42

// AuthorsLinearlySeparable rebuilds the authors' very "Linearly Separable" data and split, replaying
// Julia's random number generator (Julia 1.9's Xoshiro256++, bit for bit) through the calls that made
// them: ECCCo.jl's experiments/linearly_separable.jl ran
//
//	train_test_split(load_blobs(1250; cluster_std = 0.1, center_box = (-1.0 => 1.0)); test_size = 0.2)
//
// and CE.jl's load_blobs (src/data/synthetic/blobs.jl:10-11) called Random.seed!(42) and then MLJBase's
// make_blobs (v0.21.14, src/data/datasets_synthetic.jl): the centres rand(2, 2) scaled to the box, the
// points randn(1250, 2), each centre's rows scaled by 0.1 and shifted (the two row ranges overlap in row
// 625, which is moved twice and lies by the second blob with the first blob's label, as in the authors'
// data), then the rows shuffled by randperm. CE.jl's train_test_split (src/data_preprocessing/utils.jl)
// drew floor(0.2 · 625) = 125 test rows of each class with StatsBase's sample without replacement
// (Fisher–Yates, v0.34.0) and kept the rest, in order, for training. Blob 1 is class 0.
//
// The test of package experiment checks the result against a fact from outside: the authors' MLP and
// JEM, scored on the second half of this training split, give the nonconformity scores stored in their
// model file to float32 precision, row by row.
func AuthorsLinearlySeparable() (train, test *Dataset) {
	const n, p, std = 1250, 2, 0.1
	r := newJuliaRNG(AuthorsLinearlySeparableSeed)
	var u [4]float64 // rand(rng, 2, 2), column-major: centres[c, j] = u[c + 2j]
	for i := range u {
		u[i] = r.float64()
	}
	centres := [2][2]float64{{2*u[0] - 1, 2*u[2] - 1}, {2*u[1] - 1, 2*u[3] - 1}}
	z := make([]float64, n*p) // randn(rng, n, 2), column-major
	for i := range z {
		z[i] = r.normFloat64()
	}
	x := make([][2]float64, n)
	for i := range x {
		x[i] = [2]float64{z[i], z[n+i]}
	}
	y := make([]int, n)
	for i := n / 2; i < n; i++ {
		y[i] = 1
	}
	for c, rows := range [2][2]int{{1, n / 2}, {n / 2, n}} { // 1-based, inclusive, overlapping in n/2
		for i := rows[0]; i <= rows[1]; i++ {
			for j := range p {
				x[i-1][j] = x[i-1][j]*std + centres[c][j]
			}
		}
	}
	perm := r.randperm(n)
	d := &Dataset{Name: "linearly-separable", X: make([]float32, n*p), Y: make([]int, n), FeatureNames: synthFeatures, ClassNames: binaryNames}
	for i, src := range perm {
		d.X[p*i], d.X[p*i+1] = float32(x[src-1][0]), float32(x[src-1][1])
		d.Y[i] = y[src-1]
	}
	inTest := make([]bool, n)
	k := PaperTestSizePerClass(n)           // floor(test_size · round(N / 2)) = 125
	for _, rows := range d.ClassIndices() { // the classes in y_levels order, each class's rows in file order
		for _, row := range r.sampleWithoutReplacement(rows, k) {
			inTest[row] = true
		}
	}
	return d.splitByMask(inTest)
}

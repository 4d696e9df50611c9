package data

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Dataset is a labelled design matrix: N rows of D float32 features and N integer class labels in
// [0, K). Rows are stored row-major in X (row i is X[i*D:(i+1)*D]); this is the layout GoMLX tensors use,
// so a Dataset converts to a [N, D] tensor without copying rows one by one.
//
// Methods that select or transform rows return new Datasets and never modify the receiver.
type Dataset struct {
	// Name identifies the data set (e.g. "moons"); see Names for the eight sets of the paper.
	Name string
	// X holds the features, row-major, len(X) == N·D.
	X []float32
	// Y holds the class labels, len(Y) == N, each in [0, len(ClassNames)).
	Y []int
	// FeatureNames has one name per column (D entries).
	FeatureNames []string
	// ClassNames has one name per class (K entries).
	ClassNames []string
	// Image, when not nil, says that each row is an image of this shape stored in row-major (H, W, C)
	// order, with pixels scaled to [−1, 1].
	Image *ImageShape
}

// ImageShape is the height, width and number of channels of image rows.
type ImageShape struct{ Height, Width, Channels int }

// Size returns Height·Width·Channels, the number of features of one image.
func (s ImageShape) Size() int { return s.Height * s.Width * s.Channels }

// N returns the number of rows.
func (d *Dataset) N() int { return len(d.Y) }

// D returns the number of features per row.
func (d *Dataset) D() int { return len(d.FeatureNames) }

// K returns the number of classes.
func (d *Dataset) K() int { return len(d.ClassNames) }

// Row returns row i as a slice that aliases X; copy it before modifying.
func (d *Dataset) Row(i int) []float32 { D := d.D(); return d.X[i*D : (i+1)*D] }

// Validate checks the invariants of the type: matching lengths, labels in range and finite features.
// Loaders call it before returning, so a Dataset obtained from this package is always valid.
func (d *Dataset) Validate() error {
	D, N, K := d.D(), d.N(), d.K()
	switch {
	case D == 0:
		return fmt.Errorf("data set %q has no features", d.Name)
	case K < 2:
		return fmt.Errorf("data set %q has %d classes, need at least 2", d.Name, K)
	case len(d.X) != N*D:
		return fmt.Errorf("data set %q: len(X) = %d, want N·D = %d·%d", d.Name, len(d.X), N, D)
	case d.Image != nil && d.Image.Size() != D:
		return fmt.Errorf("data set %q: image shape %+v has %d pixels, rows have %d features", d.Name, *d.Image, d.Image.Size(), D)
	}
	for i, y := range d.Y {
		if y < 0 || y >= K {
			return fmt.Errorf("data set %q: row %d has label %d outside [0, %d)", d.Name, i, y, K)
		}
	}
	for i, v := range d.X {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("data set %q: row %d, feature %q is %v", d.Name, i/D, d.FeatureNames[i%D], v)
		}
	}
	return nil
}

// Subset returns the rows with the given indices, in that order (indices may repeat).
func (d *Dataset) Subset(indices []int) *Dataset {
	D := d.D()
	out := d.emptyLike(len(indices))
	for j, i := range indices {
		copy(out.X[j*D:(j+1)*D], d.Row(i))
		out.Y[j] = d.Y[i]
	}
	return out
}

func (d *Dataset) emptyLike(n int) *Dataset {
	return &Dataset{
		Name: d.Name, X: make([]float32, n*d.D()), Y: make([]int, n),
		FeatureNames: d.FeatureNames, ClassNames: d.ClassNames, Image: d.Image,
	}
}

// ClassIndices returns, for each class k, the indices of the rows labelled k, in increasing order.
func (d *Dataset) ClassIndices() [][]int {
	idx := make([][]int, d.K())
	for i, y := range d.Y {
		idx[y] = append(idx[y], i)
	}
	return idx
}

// ClassCounts returns the number of rows of each class.
func (d *Dataset) ClassCounts() []int {
	counts := make([]int, d.K())
	for _, y := range d.Y {
		counts[y]++
	}
	return counts
}

// BalancedSplit splits the rows into a training and a test set whose test part is class-balanced: it
// holds perClassTest rows of every class, drawn without replacement, and the training set holds all other
// rows. Both keep the original row order. It fails if a class has fewer than perClassTest rows; a
// negative perClassTest, a nil rng or a label outside [0, K) is an error wrapping ErrInvalidOption
// (perClassTest 0 gives an empty test set).
func (d *Dataset) BalancedSplit(perClassTest int, rng *rand.Rand) (train, test *Dataset, err error) {
	if perClassTest < 0 {
		return nil, nil, markf(ErrInvalidOption, "splitting %q: %d test rows per class is negative", d.Name, perClassTest)
	}
	if err := d.checkSampling("splitting", rng); err != nil {
		return nil, nil, err
	}
	isTest := make([]bool, d.N())
	for k, rows := range d.ClassIndices() {
		if len(rows) < perClassTest {
			return nil, nil, fmt.Errorf("splitting %q: class %q has %d rows, need %d for the test set",
				d.Name, d.ClassNames[k], len(rows), perClassTest)
		}
		perm := rng.Perm(len(rows))
		for _, p := range perm[:perClassTest] {
			isTest[rows[p]] = true
		}
	}
	train, test = d.splitByMask(isTest)
	return train, test, nil
}

// splitByMask returns the rows whose isTest is false and those whose isTest is true, each in the original
// order.
func (d *Dataset) splitByMask(isTest []bool) (train, test *Dataset) {
	var trainIdx, testIdx []int
	for i, t := range isTest {
		if t {
			testIdx = append(testIdx, i)
		} else {
			trainIdx = append(trainIdx, i)
		}
	}
	return d.Subset(trainIdx), d.Subset(testIdx)
}

// PaperTestSizePerClass is the per-class test size of the paper's class-balanced split of N rows:
// floor(0.2 · round(N/2)), with round-half-to-even as Julia's round does. For N = 1,250 / 3,125 / 20,630 /
// 16,714 / 1,000 this gives 125 / 312 / 2,063 / 1,671 / 100.
func PaperTestSizePerClass(n int) int {
	return int(math.Floor(0.2 * math.RoundToEven(float64(n)/2)))
}

// SamplePerClass draws n rows of every class (with or without replacement) and returns them grouped by
// class. Without replacement it fails if a class has fewer than n rows. n < 1, a nil rng or a label
// outside [0, K) is an error wrapping ErrInvalidOption.
func (d *Dataset) SamplePerClass(n int, withReplacement bool, rng *rand.Rand) (*Dataset, error) {
	if n < 1 {
		return nil, markf(ErrInvalidOption, "sampling from %q: %d rows per class, need at least 1", d.Name, n)
	}
	if err := d.checkSampling("sampling from", rng); err != nil {
		return nil, err
	}
	var indices []int
	for k, rows := range d.ClassIndices() {
		if len(rows) == 0 || (!withReplacement && len(rows) < n) {
			return nil, fmt.Errorf("sampling %d rows of class %q from %q: only %d available", n, d.ClassNames[k], d.Name, len(rows))
		}
		if withReplacement {
			for range n {
				indices = append(indices, rows[rng.IntN(len(rows))])
			}
		} else {
			for _, p := range rng.Perm(len(rows))[:n] {
				indices = append(indices, rows[p])
			}
		}
	}
	return d.Subset(indices), nil
}

// checkSampling rejects a nil random source and labels outside [0, K), which would otherwise panic.
func (d *Dataset) checkSampling(what string, rng *rand.Rand) error {
	if rng == nil {
		return markf(ErrInvalidOption, "%s %q: nil random source (use data.NewRand(seed))", what, d.Name)
	}
	for i, y := range d.Y {
		if y < 0 || y >= d.K() {
			return markf(ErrInvalidOption, "%s %q: row %d has label %d outside [0, %d)", what, d.Name, i, y, d.K())
		}
	}
	return nil
}

// WithNoise returns a copy with independent N(0, sd²) noise added to every feature (the paper adds
// sd = 0.03 to training images).
func (d *Dataset) WithNoise(sd float64, rng *rand.Rand) *Dataset {
	out := d.Subset(identity(d.N()))
	for i := range out.X {
		out.X[i] += float32(sd * rng.NormFloat64())
	}
	return out
}

// Shuffled returns a copy with rows in a random order.
func (d *Dataset) Shuffled(rng *rand.Rand) *Dataset { return d.Subset(rng.Perm(d.N())) }

func identity(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// Bounds returns the per-feature minimum and maximum over the rows: the domain constraints used to clamp
// counterfactuals (the paper uses the training data's bounds).
func (d *Dataset) Bounds() (lo, hi []float32) {
	D := d.D()
	lo, hi = make([]float32, D), make([]float32, D)
	for j := range D {
		lo[j], hi[j] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	for i := range d.N() {
		for j, v := range d.Row(i) {
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	return lo, hi
}

// Standardizer maps every feature to mean 0 and sample standard deviation 1 (divisor n − 1), as the paper
// does for tabular data. Features with zero spread are left centred with scale 1.
type Standardizer struct {
	Mean  []float64
	Scale []float64
}

// FitStandardizer computes per-feature means and sample standard deviations of d.
func FitStandardizer(d *Dataset) *Standardizer {
	D, N := d.D(), d.N()
	s := &Standardizer{Mean: make([]float64, D), Scale: make([]float64, D)}
	for i := range N {
		for j, v := range d.Row(i) {
			s.Mean[j] += float64(v)
		}
	}
	for j := range D {
		s.Mean[j] /= float64(N)
	}
	for i := range N {
		for j, v := range d.Row(i) {
			dv := float64(v) - s.Mean[j]
			s.Scale[j] += dv * dv
		}
	}
	for j := range D {
		s.Scale[j] = math.Sqrt(s.Scale[j] / float64(max(N-1, 1)))
		if s.Scale[j] == 0 || math.IsNaN(s.Scale[j]) {
			s.Scale[j] = 1
		}
	}
	return s
}

// Transform returns a standardised copy of d.
func (s *Standardizer) Transform(d *Dataset) *Dataset {
	out := d.Subset(identity(d.N()))
	s.TransformRows(out.X)
	return out
}

// TransformRows standardises row-major rows in place.
func (s *Standardizer) TransformRows(x []float32) {
	D := len(s.Mean)
	for i := range x {
		j := i % D
		x[i] = float32((float64(x[i]) - s.Mean[j]) / s.Scale[j])
	}
}

// InverseRows maps standardised row-major rows back to the original units, in place.
func (s *Standardizer) InverseRows(x []float32) {
	D := len(s.Mean)
	for i := range x {
		j := i % D
		x[i] = float32(float64(x[i])*s.Scale[j] + s.Mean[j])
	}
}

// Split is a data set prepared the way the paper prepares it: a training set, a test set, the domain
// bounds for counterfactual search and, for tabular data, the standardiser that was fitted.
type Split struct {
	Train, Test *Dataset
	// Lower and Upper are the per-feature domain bounds (the training data's min and max).
	Lower, Upper []float32
	// Standardizer is the fitted feature scaling, or nil when the features were not standardised.
	Standardizer *Standardizer
}

// NewSplit fills Lower and Upper from the training data.
func NewSplit(train, test *Dataset, std *Standardizer) *Split {
	lo, hi := train.Bounds()
	return &Split{Train: train, Test: test, Lower: lo, Upper: hi, Standardizer: std}
}

// NewRand returns the package's deterministic random source for a seed (PCG, from math/rand/v2). The same
// seed gives the same stream on every platform and Go version that keeps math/rand/v2's PCG.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/ml/model"
)

// The set form must give ImageDissimilarity's values bit for bit (the benchmark's results do not change
// with it), cropped and uncropped, on random images and on images with flat regions.
func TestImageSetDissimilarityIsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const h, w, n = 28, 28, 9
	set := make([]float32, n*h*w)
	for i := range set {
		set[i] = float32(rng.Float64()*2 - 1)
	}
	for i := range h * w { // a flat image and one of ±1 pixels
		set[i] = -1
		set[h*w+i] = float32(2*(i%2) - 1)
	}
	x := make([]float32, h*w)
	for i := range x {
		x[i] = float32(math.Sin(float64(i) / 7))
	}
	for _, c := range []struct {
		name string
		dist Distance
		set  SetDistance
	}{
		{"cropped", ImageDissimilarity(h, w), ImageSetDissimilarity(h, w)},
		{"uncropped", ImageDissimilarityUncropped(h, w), ImageSetDissimilarityUncropped(h, w)},
	} {
		fn, err := c.set(set)
		if err != nil {
			t.Fatal(err)
		}
		for _, probe := range [][]float32{x, set[2*h*w : 3*h*w], set[:h*w]} {
			out := make([]float64, n)
			fn(probe, out)
			for i := range n {
				want := c.dist(probe, set[i*h*w:(i+1)*h*w])
				if math.Float64bits(out[i]) != math.Float64bits(want) {
					t.Errorf("%s, row %d: set form %v, pair form %v", c.name, i, out[i], want)
				}
			}
		}
	}
}

func TestImageSetDissimilarityErrors(t *testing.T) {
	if _, err := ImageSetDissimilarity(28, 28)(make([]float32, 100)); err == nil {
		t.Error("a set that is not whole images: no error")
	}
	if _, err := ImageSetDissimilarity(5, 5)(make([]float32, 25)); err == nil {
		t.Error("images smaller than the window: no error")
	}
	fn, err := ImageSetDissimilarity(28, 28)(make([]float32, 784))
	if err != nil {
		t.Fatal(err)
	}
	out := []float64{0}
	fn(make([]float32, 10), out)
	if !math.IsNaN(out[0]) {
		t.Errorf("a row of the wrong size gives %v, want NaN (as ImageDissimilarity)", out[0])
	}
}

// The evaluator gives the same scores, bit for bit, with the set form of the image distance as with the
// pair form, and with the rows scored in parallel (several rows of each target class, nearest 3).
func TestEvaluateWithSetDistanceIsBitIdentical(t *testing.T) {
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	const h, w, d = 28, 28, 28 * 28
	rng := rand.New(rand.NewPCG(3, 5))
	img := func(n int) []float32 {
		v := make([]float32, n*d)
		for i := range v {
			v[i] = float32(rng.Float64()*2 - 1)
		}
		return v
	}
	train := &data.Dataset{Name: "toy images", X: img(12), Y: []int{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1},
		FeatureNames: make([]string, d), ClassNames: []string{"a", "b"}}
	sum := models.FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		a := ExpandAxes(ReduceSum(x, -1), -1)
		return Concatenate([]*Node{ZerosLike(a), a}, 1)
	}, d, 2)
	samples := &energy.TargetSamples{D: d, Samples: [][]float32{img(4), img(4)}}
	factuals, cfs := img(7), img(7)
	targets := []int{1, 0, 1, 1, 0, 1, 0}
	pair := &Evaluator{Backend: b, Model: sum, Train: train, Samples: samples,
		Options: Options{Distance: ImageDissimilarityUncropped(h, w), ImplausibilityNearest: 3}}
	set := *pair
	set.Options.SetDistance = ImageSetDissimilarityUncropped(h, w)
	want, err := pair.Evaluate(factuals, cfs, targets)
	if err != nil {
		t.Fatal(err)
	}
	got, err := set.Evaluate(factuals, cfs, targets)
	if err != nil {
		t.Fatal(err)
	}
	bits := func(s Scores) [6]uint64 {
		return [6]uint64{math.Float64bits(s.Unfaithfulness), math.Float64bits(s.Implausibility), math.Float64bits(s.Cost),
			math.Float64bits(s.Redundancy), math.Float64bits(s.Probability), math.Float64bits(s.Uncertainty)}
	}
	for i := range want {
		if bits(got[i]) != bits(want[i]) || got[i].Valid != want[i].Valid {
			t.Errorf("row %d: set form %+v, pair form %+v", i, got[i], want[i])
		}
	}
	// Class rows kept across calls (Evaluator.Classes): the second call reuses the first's prepared rows
	// and gives the same bits; samples of each row's own (EvaluateEach) too.
	set.Classes = &ClassRows{}
	own := make([][]float32, len(targets))
	for i := range own {
		own[i] = img(3)
	}
	wantOwn, err := pair.EvaluateEach(factuals, cfs, targets, own)
	if err != nil {
		t.Fatal(err)
	}
	for call := range 2 {
		got, err := set.Evaluate(factuals, cfs, targets)
		if err != nil {
			t.Fatal(err)
		}
		gotOwn, err := set.EvaluateEach(factuals, cfs, targets, own)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if bits(got[i]) != bits(want[i]) || bits(gotOwn[i]) != bits(wantOwn[i]) {
				t.Errorf("call %d, row %d: kept class rows %+v / own samples %+v, pair form %+v / %+v", call, i, got[i], gotOwn[i], want[i], wantOwn[i])
			}
		}
	}
	if set.Classes.prepared[0] == nil || set.Classes.prepared[1] == nil {
		t.Error("Evaluator.Classes kept no prepared class rows")
	}
	// By hand for row 0: the implausibility is the mean of the 3 smallest pair distances to class 1.
	var ds []float64
	for r, y := range train.Y {
		if y == 1 {
			ds = append(ds, ImageDissimilarityUncropped(h, w)(cfs[:d], train.X[r*d:(r+1)*d]))
		}
	}
	slices.Sort(ds)
	if m := (ds[0] + ds[1] + ds[2]) / 3; math.Abs(got[0].Implausibility-m) > 1e-15 {
		t.Errorf("row 0 implausibility %v, want the mean of the 3 nearest %v", got[0].Implausibility, m)
	}
}

// SSIM's values are pinned to the bits of the implementation that computed the committed benchmark results
// (eccco-go ceda0cd, before SSIM was split into per-image and cross terms): two smooth 28×28 images,
// cropped and uncropped, with the paper's settings on pixels mapped to [0, 1] and with a 7-tap window.
func TestSSIMPinnedBits(t *testing.T) {
	a, b := make([]float32, 784), make([]float32, 784)
	for i := range a {
		a[i] = float32(math.Sin(float64(i)*0.37)) * 0.9
		b[i] = float32(math.Cos(float64(i)*0.11+1)) * 0.8
	}
	want := map[bool][2]uint64{true: {0x3f6167e9278e5fd8, 0x3fb8d48084d57647}, false: {0x3f7af81dd3cbdcce, 0x3fb7e177d79cf089}}
	for _, crop := range []bool{true, false} {
		v, err := ssimMean(a, b, 28, 28, DefaultSSIM(), crop, mapUnit)
		if err != nil {
			t.Fatal(err)
		}
		w, err := ssimMean(a, b, 28, 28, SSIMOptions{Window: 7, Sigma: 1, K1: 0.01, K2: 0.03, DataRange: 2}, crop, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := [2]uint64{math.Float64bits(v), math.Float64bits(w)}; got != want[crop] {
			t.Errorf("crop %v: SSIM bits %#x, want %#x (values %v, %v)", crop, got, want[crop], v, w)
		}
	}
}

// BenchmarkImageSetDissimilarity measures the implausibility's inner loop: one 28×28 counterfactual against
// a class's training images (600 here, about a tenth of a vision training split), uncropped (the authors'
// code) and cropped. Reports ns per pair. Run with: go test -run '^$' -bench ImageSet ./eccco/metrics/
func BenchmarkImageSetDissimilarity(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 5))
	const h, w, n = 28, 28, 600
	set := ssimRandom(rng, n*h, w, -1, 1)
	x := ssimRandom(rng, h, w, -1, 1)
	for _, c := range []struct {
		name string
		set  SetDistance
	}{{"uncropped", ImageSetDissimilarityUncropped(h, w)}, {"cropped", ImageSetDissimilarity(h, w)}} {
		b.Run(c.name, func(b *testing.B) {
			fn, err := c.set(set)
			if err != nil {
				b.Fatal(err)
			}
			out := make([]float64, n)
			for b.Loop() {
				fn(x, out)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/pair")
		})
	}
}

package conformal

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

// concat joins the training and test parts of a Split back into one data set.
func concat(s *data.Split) *data.Dataset {
	d := *s.Train
	d.X = append(slices.Clone(s.Train.X), s.Test.X...)
	d.Y = append(slices.Clone(s.Train.Y), s.Test.Y...)
	return &d
}

// Split conformal coverage on held-out data, for two real tabular sets with imperfect classifiers. Each
// set is shuffled and split into 3,000 rows to fit a small MLP (3 epochs) and two halves of the rest
// (about 8,800 / 6,850 rows each for California Housing / GMSC) for calibration and testing.
//
// Why ±0.02 holds: given the calibration set, the test coverage is a binomial mean with sd
// sqrt(α(1−α)/n_test) ≤ sqrt(0.09/6850) = 0.0036; over calibration sets, the conditional coverage of split
// conformal prediction varies with sd about sqrt(α(1−α)/(n_cal+2)) ≤ 0.0036 as well, and the plain
// (1 − α) quantile is biased by less than 1/n_cal. The total sd is ≤ 0.0052, so ±0.02 is about 4 sd.
func TestCoverageOnHeldOutData(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two models")
	}
	b := testBackend(t)
	for _, name := range []string{"california-housing", "gmsc"} {
		split, err := data.Load(name, data.Options{Seed: 7})
		if err != nil {
			t.Skipf("%s not available: %v", name, err)
		}
		all := concat(split).Shuffled(data.NewRand(11))
		idx := func(lo, hi int) []int {
			v := make([]int, hi-lo)
			for i := range v {
				v[i] = lo + i
			}
			return v
		}
		const nFit = 3000
		fit := all.Subset(idx(0, nFit))
		cal, test, err := SplitCalibration(all.Subset(idx(nFit, all.N())), 0.5, 5)
		if err != nil {
			t.Fatal(err)
		}
		m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: all.D(), NumClasses: all.K(),
			Hidden: 32, Layers: 2, Activation: "relu", Members: 1}, 3)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := models.Train(context.Background(), b, m, fit, models.TrainOptions{Epochs: 3, BatchSize: 64, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		pred, err := models.Predict(b, m, test.X)
		if err != nil {
			t.Fatal(err)
		}
		correct := 0
		for i, p := range pred {
			if p == test.Y[i] {
				correct++
			}
		}
		acc := float64(correct) / float64(test.N())
		for _, alpha := range []float64{0.05, 0.1} {
			for _, finite := range []bool{false, true} {
				opts := DefaultOptions()
				opts.Alpha, opts.FiniteSampleCorrection = alpha, finite
				c, err := Calibrate(b, m, cal, opts)
				if err != nil {
					t.Fatal(err)
				}
				cov, err := c.Evaluate(b, test)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s (n_cal %d, n_test %d, accuracy %.3f) α = %.2f finite-sample %v: q̂ = %.4f coverage %.4f, mean set size %.3f, empty %.3f",
					name, cal.N(), test.N(), acc, alpha, finite, c.QHat, cov.Coverage, cov.MeanSetSize, cov.EmptyFraction)
				if math.Abs(cov.Coverage-(1-alpha)) > 0.02 {
					t.Errorf("%s α = %v: coverage %.4f not within ±0.02 of %.2f", name, alpha, cov.Coverage, 1-alpha)
				}
				if cov.MeanSetSize <= 1 {
					t.Errorf("%s α = %v: mean set size %.3f; the test wants non-trivial sets", name, alpha, cov.MeanSetSize)
				}
			}
		}
	}
}

func TestPredictionSetsMatchScores(t *testing.T) {
	b := testBackend(t)
	clf := testMLP()
	x := []float32{0.3, -0.2, -0.8, 0.5, 1.1, 0.9, 0.1, 0.05}
	c := &Calibrated{Clf: clf, QHat: 0.6, Opts: DefaultOptions()}
	sets, err := c.PredictionSets(b, x)
	if err != nil {
		t.Fatal(err)
	}
	probs, _ := models.Probabilities(b, clf, x)
	for i, set := range sets {
		for k := range 3 {
			if in := 1-float64(probs[i*3+k]) <= 0.6; in != slices.Contains(set, k) {
				t.Errorf("row %d: set %v, p = %v", i, set, probs[i*3:i*3+3])
			}
		}
	}
	// Evaluate on labelled rows: coverage counts rows whose set holds the label.
	d := &data.Dataset{X: x, Y: []int{0, 1, 2, 0}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1", "2"}}
	cov, err := c.Evaluate(b, d)
	if err != nil {
		t.Fatal(err)
	}
	covered, size := 0, 0
	for i, s := range sets {
		size += len(s)
		if slices.Contains(s, d.Y[i]) {
			covered++
		}
	}
	near(t, "coverage", cov.Coverage, float64(covered)/4, 0)
	near(t, "mean size", cov.MeanSetSize, float64(size)/4, 0)
}

func TestSplitCalibration(t *testing.T) {
	d, err := data.Moons(101, 0.1, data.NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	fit, cal, err := SplitCalibration(d, 0.5, 9)
	if err != nil {
		t.Fatal(err)
	}
	if fit.N()+cal.N() != d.N() || cal.N() != 51 { // round(50.5) = 51
		t.Fatalf("split sizes %d + %d of %d", fit.N(), cal.N(), d.N())
	}
	fit2, cal2, _ := SplitCalibration(d, 0.5, 9)
	if !slices.Equal(fit.X, fit2.X) || !slices.Equal(cal.Y, cal2.Y) {
		t.Error("same seed gave different splits")
	}
	_, cal3, _ := SplitCalibration(d, 0.5, 10)
	if slices.Equal(cal.X, cal3.X) {
		t.Error("different seeds gave the same split")
	}
	// Every row lands in exactly one part.
	seen := map[[2]float32]int{}
	for _, part := range []*data.Dataset{fit, cal, d} {
		for i := range part.N() {
			r := part.Row(i)
			seen[[2]float32{r[0], r[1]}]++
		}
	}
	for r, n := range seen {
		if n != 2 {
			t.Fatalf("row %v seen %d times", r, n)
		}
	}
	for _, frac := range []float64{0, 1, -0.5, math.NaN()} {
		if _, _, err := SplitCalibration(d, frac, 1); err == nil {
			t.Errorf("fraction %v: no error", frac)
		}
	}
}

func TestGridValues(t *testing.T) {
	b := testBackend(t)
	c := &Calibrated{Clf: testMLP(), QHat: 0.6, Opts: DefaultOptions()}
	const n = 7
	g, err := GridValues(b, c, [2]float64{-2, 2}, [2]float64{-1, 3}, n, 1, LossOptions{})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "X[0]", g.X[0], -2, 0)
	near(t, "X[n-1]", g.X[n-1], 2, 1e-12)
	near(t, "Y[n-1]", g.Y[n-1], 3, 1e-12)
	pts := make([]float32, 0, 2*n*n)
	for _, y := range g.Y {
		for _, x := range g.X {
			pts = append(pts, float32(x), float32(y))
		}
	}
	sets, err := c.PredictionSets(b, pts)
	if err != nil {
		t.Fatal(err)
	}
	// Reference values from the graph functions, computed point by point in float64.
	logits := make([][]float64, 0, n*n)
	lg, _ := models.Logits(b, c.Clf, pts)
	for i := range n * n {
		logits = append(logits, []float64{float64(lg[3*i]), float64(lg[3*i+1]), float64(lg[3*i+2])})
	}
	omega := evalLogits(t, logits, func(l *Node) *Node { return SmoothSetSize(l, 0.6, 0.1, 1) })
	loss := evalLogits(t, logits, func(l *Node) *Node {
		return ConfigurableLoss(l, AddScalar(Const(l.Graph(), make([]int32, n*n)), int32(1)), 0.6, 0.1, LossOptions{})
	})
	sizes := map[float64]bool{}
	for iy := range n {
		for ix := range n {
			i := iy*n + ix
			near(t, "grid set size", g.SetSize[iy][ix], float64(len(sets[i])), 0)
			near(t, "grid Ω", g.SmoothSetSize[iy][ix], omega[i], 1e-5)
			near(t, "grid loss", g.Loss[iy][ix], loss[i], 1e-5)
			sizes[g.SetSize[iy][ix]] = true
		}
	}
	t.Logf("grid set sizes present: %v", sizes)
	for _, bad := range []struct {
		n, target int
		xr        [2]float64
	}{{1, 0, [2]float64{0, 1}}, {5, 3, [2]float64{0, 1}}, {5, -1, [2]float64{0, 1}}, {5, 0, [2]float64{1, 1}}} {
		if _, err := GridValues(b, c, bad.xr, [2]float64{0, 1}, bad.n, bad.target, LossOptions{}); err == nil {
			t.Errorf("GridValues(n=%d, target=%d, x %v): no error", bad.n, bad.target, bad.xr)
		}
	}
	if _, err := GridValues(b, c, [2]float64{0, 1}, [2]float64{0, 1}, 3, 0, LossOptions{Matrix: [][]float64{{1}}}); err == nil {
		t.Error("wrong-size loss matrix: no error")
	}
}

func TestBadInputs(t *testing.T) {
	b := testBackend(t)
	clf := testMLP()
	cal := &data.Dataset{X: []float32{0, 1, 1, 0}, Y: []int{0, 2}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1", "2"}}
	wantErr := func(what string, err error, part string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("%s: error %v, want one mentioning %q", what, err, part)
		}
	}
	for _, a := range []float64{0, 1, -0.1, 1.5, math.NaN()} {
		o := DefaultOptions()
		o.Alpha = a
		_, err := Calibrate(b, clf, cal, o)
		wantErr("alpha", err, "Alpha")
	}
	for _, temp := range []float64{0, -1, math.Inf(1), math.NaN()} {
		o := DefaultOptions()
		o.Temperature = temp
		_, err := Calibrate(b, clf, cal, o)
		wantErr("temperature", err, "Temperature")
	}
	o := DefaultOptions()
	o.Kappa = -1
	_, err := Calibrate(b, clf, cal, o)
	wantErr("kappa", err, "Kappa")
	_, err = Calibrate(b, clf, &data.Dataset{FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1", "2"}}, DefaultOptions())
	wantErr("empty calibration set", err, "empty")
	_, err = Calibrate(b, clf, nil, DefaultOptions())
	wantErr("nil calibration set", err, "empty")
	wide := &data.Dataset{X: []float32{0, 1, 2}, Y: []int{0}, FeatureNames: []string{"a", "b", "c"}, ClassNames: []string{"0", "1", "2"}}
	_, err = Calibrate(b, clf, wide, DefaultOptions())
	wantErr("feature mismatch", err, "features")
	badLabel := &data.Dataset{X: []float32{0, 1}, Y: []int{5}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1", "2"}}
	_, err = Calibrate(b, clf, badLabel, DefaultOptions())
	wantErr("label out of range", err, "label")
	_, err = Calibrate(b, nil, cal, DefaultOptions())
	wantErr("nil classifier", err, "classifier")
	_, err = Quantile(nil, 0.1, false)
	wantErr("no scores", err, "no calibration scores")
	c, err := Calibrate(b, clf, cal, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.PredictionSets(b, []float32{1, 2, 3})
	wantErr("ragged input", err, "rows")
	_, err = c.Evaluate(b, wide)
	wantErr("evaluate feature mismatch", err, "features")
}

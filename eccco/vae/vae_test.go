package vae

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// moonsSpec is the paper's VAE for moons with d features (catalogue.Datasets: latent 2, hidden 32, the
// authors' sigmoid encoder), written out: this package cannot import the catalogue.
func moonsSpec(d int) Spec {
	return Spec{NumFeatures: d, Latent: 2, Hidden: 32, Activation: DefaultActivation, Dataset: "moons"}
}

// moonsTraining is the paper's VAE training for moons (catalogue.Dataset.VAETrainOptions).
var moonsTraining = TrainOptions{Epochs: DefaultEpochs, BatchSize: DefaultBatchSize, LearningRate: DefaultLearningRate, L2: DefaultL2}

func setVar(t *testing.T, v *VAE, path string, value [][]float32) {
	t.Helper()
	variable := v.Store().GetVariable(path)
	if variable == nil {
		t.Fatalf("no variable %s", path)
	}
	variable.MustSetValue(tensors.FromValue(value))
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// The KL term against values computed by hand from ½ Σ_j (σ_j² + μ_j² − 1 − 2 log σ_j).
func TestKLMatchesHandComputation(t *testing.T) {
	b := testBackend(t)
	exec, err := NewExec(b, func(mu, logSigma *Node) *Node { return KL(mu, logSigma) })
	if err != nil {
		t.Fatal(err)
	}
	mu := [][]float64{{0.5, -1}, {0, 0}, {2, 0}}
	logSigma := [][]float64{{0, 0.5}, {0, 0}, {-1, 0}}
	// Row 0: ½[(1 + 0.25 − 1 − 0) + (e¹ + 1 − 1 − 1)] = ½(0.25 + 1.718281828) = 0.984140914.
	// Row 1: the posterior equals the prior, KL = 0.
	// Row 2: ½[(e⁻² + 4 − 1 + 2) + 0] = ½ · 5.135335283 = 2.567667642.
	want := []float64{0.984140914, 0, 2.567667642}
	out, err := exec.Call(tensors.FromValue(mu), tensors.FromValue(logSigma))
	if err != nil {
		t.Fatal(err)
	}
	got := out[0].Value().([]float64)
	for i := range want {
		if !near(got[i], want[i], 1e-8) {
			t.Errorf("KL row %d = %.9f, want %.9f", i, got[i], want[i])
		}
	}
}

// A 1-1-1 VAE with hand-set weights: the encoder's sigmoid, the two linear heads and the decoder's tanh
// and linear output are computed by hand below.
func TestHandSetWeights(t *testing.T) {
	b := testBackend(t)
	v, err := New(b, Spec{NumFeatures: 1, Latent: 1, Hidden: 1, Activation: "sigmoid"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	setVar(t, v, "/encoder/hidden/weights", [][]float32{{2}})
	setVar(t, v, "/encoder/hidden/biases", [][]float32{{-1}})
	setVar(t, v, "/encoder/heads/weights", [][]float32{{3, -1}}) // [μ | log σ]
	setVar(t, v, "/encoder/heads/biases", [][]float32{{0.5, 0.2}})
	setVar(t, v, "/decoder/hidden/weights", [][]float32{{0.5}})
	setVar(t, v, "/decoder/hidden/biases", [][]float32{{0.1}})
	setVar(t, v, "/decoder/output/weights", [][]float32{{-2}})
	setVar(t, v, "/decoder/output/biases", [][]float32{{0.3}})

	// x = 1: h = σ(2·1 − 1) = σ(1) = 0.731058579; μ = 3h + 0.5 = 2.693175736; log σ = −h + 0.2 = −0.531058579.
	// x = −2: h = σ(−5) = 0.006692851; μ = 0.520078553; log σ = 0.193307149.
	wantMu := []float64{2.693175736, 0.520078553}
	wantLogSigma := []float64{-0.531058579, 0.193307149}
	// Decode(z) = −2·tanh(0.5z + 0.1) + 0.3; z = μ(1): tanh(1.446587868) = 0.895366..., so −1.490733...
	decode := func(z float64) float64 { return -2*math.Tanh(0.5*z+0.1) + 0.3 }

	x := []float32{1, -2}
	mu, err := v.EncodeMean(b, x)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := v.Encode(b, x)
	if err != nil {
		t.Fatal(err)
	}
	exec, err := model.NewExec(b, model.NewStore(), func(_ *model.Scope, x *Node) *Node {
		_, ls := v.EncodeGraph(x)
		return ls
	})
	if err != nil {
		t.Fatal(err)
	}
	lsT, err := exec.Call1(tensors.FromFlatDataAndDimensions(x, 2, 1))
	if err != nil {
		t.Fatal(err)
	}
	logSigma := tensors.MustCopyFlatData[float32](lsT)
	rec, err := v.Reconstruct(b, x)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := v.DecodeRows(b, []float32{0, -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if !near(float64(mu[i]), wantMu[i], 1e-5) || enc[i] != mu[i] {
			t.Errorf("μ(x=%v) = %v (Encode %v), want %.6f", x[i], mu[i], enc[i], wantMu[i])
		}
		if !near(float64(logSigma[i]), wantLogSigma[i], 1e-5) {
			t.Errorf("log σ(x=%v) = %v, want %.6f", x[i], logSigma[i], wantLogSigma[i])
		}
		if w := decode(wantMu[i]); !near(float64(rec[i]), w, 1e-5) {
			t.Errorf("Reconstruct(%v) = %v, want %.6f", x[i], rec[i], w)
		}
	}
	if !near(float64(dec[0]), decode(0), 1e-6) || !near(float64(dec[1]), decode(-1), 1e-6) {
		t.Errorf("DecodeRows(0, −1) = %v, want %.6f %.6f", dec, decode(0), decode(-1))
	}
}

// The gradients of Decode with respect to z and of the encoder's μ with respect to x, taken by GoMLX's
// autodiff in float64 in a graph of a foreign store (as the counterfactual search builds them), match
// central finite differences.
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	b := testBackend(t)
	v, err := New(b, Spec{NumFeatures: 3, Latent: 2, Hidden: 8, Activation: "sigmoid"}, 7)
	if err != nil {
		t.Fatal(err)
	}
	// A fixed weighting of the outputs turns each map into a scalar function.
	decodeFn := func(z *Node) *Node {
		c := Const(z.Graph(), [][]float64{{1, -0.5, 2}, {0.3, 1, -1}, {-2, 0.7, 0.4}, {0.1, 0.2, 0.3}})
		return ReduceAllSum(Mul(v.Decode(z), c))
	}
	encodeFn := func(x *Node) *Node {
		mu, logSigma := v.EncodeGraph(x)
		c := Const(x.Graph(), [][]float64{{1, -2}, {0.5, 0.25}, {-1, 1}, {2, 0.1}})
		return Add(ReduceAllSum(Mul(mu, c)), ReduceAllSum(logSigma))
	}
	z0 := [][]float64{{0.2, -0.4}, {1.5, 0.3}, {-2, 1}, {0, 0}}
	x0 := [][]float64{{0.5, -1, 2}, {0, 0, 0}, {-1.5, 0.3, 0.7}, {3, -2, 1}}
	for _, c := range []struct {
		name string
		fn   func(*Node) *Node
		at   [][]float64
	}{{"Decode w.r.t. z", decodeFn, z0}, {"EncodeGraph w.r.t. x", encodeFn, x0}} {
		f, err := model.NewExec(b, model.NewStore(), func(_ *model.Scope, x *Node) *Node { return c.fn(x) })
		if err != nil {
			t.Fatal(err)
		}
		grad, err := model.NewExec(b, model.NewStore(), func(_ *model.Scope, x *Node) *Node { return Gradient(c.fn(x), x)[0] })
		if err != nil {
			t.Fatal(err)
		}
		eval := func(p [][]float64) float64 {
			out, err := f.Call1(tensors.FromValue(p))
			if err != nil {
				t.Fatal(err)
			}
			return out.Value().(float64)
		}
		gT, err := grad.Call1(tensors.FromValue(c.at))
		if err != nil {
			t.Fatal(err)
		}
		g := gT.Value().([][]float64)
		const h = 1e-6
		worst := 0.0
		for i := range c.at {
			for j := range c.at[i] {
				p := make([][]float64, len(c.at))
				for k := range p {
					p[k] = slices.Clone(c.at[k])
				}
				p[i][j] += h
				up := eval(p)
				p[i][j] -= 2 * h
				fd := (up - eval(p)) / (2 * h)
				worst = max(worst, math.Abs(fd-g[i][j])/max(1, math.Abs(fd)))
			}
		}
		// Central differences in float64 are accurate to about h² ≈ 1e-12 plus rounding ε/h ≈ 1e-10.
		if worst > 1e-7 {
			t.Errorf("%s: autodiff differs from finite differences by %.3g (relative)", c.name, worst)
		}
		t.Logf("%s: largest relative difference %.2g", c.name, worst)
	}
}

// meanRow returns the mean of the rows of ds.
func meanRow(ds *data.Dataset) []float64 {
	m := make([]float64, ds.D())
	for i := range ds.N() {
		for j, x := range ds.Row(i) {
			m[j] += float64(x) / float64(ds.N())
		}
	}
	return m
}

// distance returns ‖a − b‖₂.
func distance(a []float32, b []float64) float64 {
	var s float64
	for j := range a {
		d := float64(a[j]) - b[j]
		s += d * d
	}
	return math.Sqrt(s)
}

// reconstructionReport trains the paper's moons VAE on train (possibly rescaled) and returns the test
// MSE per element, the MSE of predicting the training mean, and the share of test rows whose
// reconstruction is closer to them than the training mean is and closer than within (absolute distance).
func reconstructionReport(t *testing.T, train, test *data.Dataset, within float64) (mse, baseline, closerThanMean, closerThanWithin float64) {
	t.Helper()
	b := testBackend(t)
	v, err := New(b, moonsSpec(train.D()), 1)
	if err != nil {
		t.Fatal(err)
	}
	opts := moonsTraining
	opts.Seed = 1
	hist, err := Train(context.Background(), b, v, train, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(hist.Loss); n != opts.Epochs || hist.Loss[n-1] >= hist.Loss[0] {
		t.Errorf("loss per epoch %v…%v over %d epochs: did not decrease", hist.Loss[0], hist.Loss[n-1], n)
	}
	if mse, err = v.ReconstructionError(b, test); err != nil {
		t.Fatal(err)
	}
	rec, err := v.Reconstruct(b, test.X)
	if err != nil {
		t.Fatal(err)
	}
	mean := meanRow(train)
	var closer, close int
	for i := range test.N() {
		x := test.Row(i)
		xf := make([]float64, len(x))
		for j := range x {
			xf[j] = float64(x[j])
			baseline += (float64(x[j]) - mean[j]) * (float64(x[j]) - mean[j])
		}
		dRec := distance(rec[i*test.D():(i+1)*test.D()], xf)
		if dRec < distance(x, mean) {
			closer++
		}
		if dRec < within {
			close++
		}
	}
	n := float64(test.N())
	return mse, baseline / (n * float64(test.D())), float64(closer) / n, float64(close) / n
}

func scaled(ds *data.Dataset, k float32) *data.Dataset {
	out := *ds
	out.X = make([]float32, len(ds.X))
	for i, x := range ds.X {
		out.X[i] = k * x
	}
	return &out
}

// With the paper's settings (100 epochs, batch 50, λ = 0.01; about 1 s here) on moons, the VAE's
// reconstructions Decode(μ(x)) beat the training mean clearly. The authors' objective weighs the
// summed squared error 1:1 against the KL term, i.e. a Gaussian decoder with variance ½, which on moons
// (feature variance ≈ 0.54) treats much of the data as noise: measured, test MSE 0.22–0.25 against 0.54
// for the mean (seeds 1–3), and 96–98 % of test rows are reconstructed closer than the mean.
//
// On the same data scaled by 3 (variance ≈ 4.8), where that noise level is small, the same VAE must
// reconstruct almost exactly: measured MSE 0.07, 1.5 % of the variance, 85 % of rows within 0.5.
func TestTrainOnMoonsReconstructs(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two VAEs on moons (seconds)")
	}
	split, err := data.Load("moons", data.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	mse, baseline, closer, _ := reconstructionReport(t, split.Train, split.Test, 0)
	t.Logf("moons: test MSE %.4f, training-mean MSE %.4f, %.1f %% of rows closer than the mean", mse, baseline, 100*closer)
	if mse > 0.5*baseline {
		t.Errorf("test MSE %.4f is not below half the training-mean MSE %.4f", mse, baseline)
	}
	if closer < 0.9 {
		t.Errorf("only %.1f %% of test rows are reconstructed closer than the training mean, want ≥ 90 %%", 100*closer)
	}

	mse, baseline, _, close := reconstructionReport(t, scaled(split.Train, 3), scaled(split.Test, 3), 0.5)
	t.Logf("moons ×3: test MSE %.4f, training-mean MSE %.4f, %.1f %% of rows within 0.5", mse, baseline, 100*close)
	if mse > 0.05*baseline {
		t.Errorf("×3: test MSE %.4f is not below 5 %% of the training-mean MSE %.4f", mse, baseline)
	}
	if close < 0.75 {
		t.Errorf("×3: only %.1f %% of test rows are reconstructed within 0.5 (the data's sd is ≈ 2.2), want ≥ 75 %%", 100*close)
	}
}

func weights(v *VAE) map[string][]float32 {
	out := map[string][]float32{}
	for variable := range v.Store().IterVariables() {
		if variable.Trainable {
			out[variable.Path()] = tensors.MustCopyFlatData[float32](variable.MustValue())
		}
	}
	return out
}

func trainSmall(t *testing.T, seed uint64, epochs int) (*VAE, *data.Split) {
	t.Helper()
	b := testBackend(t)
	split, err := data.Load("moons", data.Options{Seed: 1, N: 400})
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(b, moonsSpec(2), seed)
	if err != nil {
		t.Fatal(err)
	}
	opts := moonsTraining
	opts.Epochs, opts.Seed = epochs, seed
	if _, err := Train(context.Background(), b, v, split.Train, opts); err != nil {
		t.Fatal(err)
	}
	return v, split
}

func TestSameSeedSameWeights(t *testing.T) {
	a, _ := trainSmall(t, 3, 3)
	b, _ := trainSmall(t, 3, 3)
	c, _ := trainSmall(t, 4, 3)
	wa, wb, wc := weights(a), weights(b), weights(c)
	if len(wa) != 8 {
		t.Errorf("%d trainable variables, want 8 (4 dense layers × weights, biases)", len(wa))
	}
	differs := false
	for path, x := range wa {
		if !slices.Equal(x, wb[path]) {
			t.Errorf("%s differs between two runs with the same seed", path)
		}
		if !slices.Equal(x, wc[path]) {
			differs = true
		}
	}
	if !differs {
		t.Error("seeds 3 and 4 gave identical weights")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	b := testBackend(t)
	v, split := trainSmall(t, 5, 2)
	dir := filepath.Join(t.TempDir(), "models", "vae")
	if err := v.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := v.Save(dir); !errors.Is(err, ErrExists) || !errors.Is(err, models.ErrExists) { // Save never replaces
		t.Fatalf("second save: err = %v, want ErrExists", err)
	}
	if err := v.Replace(dir); err != nil { // replacing on request
		t.Fatal(err)
	}
	loaded, err := Load(b, dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Spec() != v.Spec() {
		t.Errorf("loaded spec %+v, saved %+v", loaded.Spec(), v.Spec())
	}
	want, err := v.Reconstruct(b, split.Test.X)
	if err != nil {
		t.Fatal(err)
	}
	got, err := loaded.Reconstruct(b, split.Test.X)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Error("the loaded VAE reconstructs differently from the saved one")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("Save left %d entries next to the VAE, want none besides it", len(entries)-1)
	}
}

func TestErrors(t *testing.T) {
	b := testBackend(t)
	good := Spec{NumFeatures: 2, Latent: 2, Hidden: 4, Activation: "sigmoid"}
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Latent: 2, Hidden: 4, Activation: "sigmoid"}, "NumFeatures"},
		{Spec{NumFeatures: 2, Hidden: 4, Activation: "sigmoid"}, "Latent"},
		{Spec{NumFeatures: 2, Latent: 2, Activation: "sigmoid"}, "Hidden"},
		{Spec{NumFeatures: 2, Latent: 2, Hidden: 4, Activation: "softmax"}, "activation"},
	} {
		if _, err := New(b, c.spec, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): err = %v, want it to mention %q", c.spec, err, c.want)
		}
	}

	v, err := New(b, good, 1)
	if err != nil {
		t.Fatal(err)
	}
	three := &data.Dataset{Name: "three", X: make([]float32, 6), Y: []int{0, 1}, FeatureNames: []string{"a", "b", "c"}, ClassNames: []string{"0", "1"}}
	if _, err := Train(context.Background(), b, v, three, TrainOptions{Epochs: 1}); err == nil || !strings.Contains(err.Error(), "features") {
		t.Errorf("Train on 3 features with a 2-feature VAE: err = %v", err)
	}
	if _, err := v.ReconstructionError(b, three); err == nil {
		t.Error("ReconstructionError accepted a 3-feature data set")
	}
	two := &data.Dataset{Name: "two", X: make([]float32, 4), Y: []int{0, 1}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"0", "1"}}
	for _, o := range []TrainOptions{{}, {Epochs: 1, L2: -1}, {Epochs: 1, BatchSize: -1}, {Epochs: 1, LearningRate: math.NaN()}} {
		if _, err := Train(context.Background(), b, v, two, o); err == nil {
			t.Errorf("Train accepted options %+v", o)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Train(ctx, b, v, two, TrainOptions{Epochs: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("Train with a cancelled context: err = %v", err)
	}
	if _, err := v.EncodeMean(b, []float32{1, 2, 3}); err == nil {
		t.Error("EncodeMean accepted 3 values for 2 features")
	}
	if _, err := v.DecodeRows(b, []float32{1}); err == nil {
		t.Error("DecodeRows accepted 1 value for a latent size of 2")
	}
	if _, err := v.Reconstruct(b, nil); err == nil {
		t.Error("Reconstruct accepted no rows")
	}

	// Loading: a missing directory, a corrupt spec, a spec without weights, weights that do not fit.
	if _, err := Load(b, filepath.Join(t.TempDir(), "nothing")); !errors.Is(err, ErrNoVAE) || !strings.Contains(err.Error(), "no saved VAE") {
		t.Errorf("Load of a missing directory: err = %v", err)
	}
	corrupt := t.TempDir()
	_ = os.WriteFile(filepath.Join(corrupt, SpecFile), []byte("{not json"), 0o644)
	if _, err := Load(b, corrupt); err == nil || !strings.Contains(err.Error(), "parsing") {
		t.Errorf("Load of a corrupt spec: err = %v", err)
	}
	noWeights := t.TempDir()
	_ = os.WriteFile(filepath.Join(noWeights, SpecFile), []byte(`{"num_features":2,"latent":2,"hidden":4,"activation":"sigmoid"}`), 0o644)
	if _, err := Load(b, noWeights); err == nil || errors.Is(err, ErrNoVAE) {
		t.Error("Load of a spec without weights succeeded")
	}
	mismatch := filepath.Join(t.TempDir(), "vae")
	if err := v.Save(mismatch); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(mismatch, SpecFile), []byte(`{"num_features":2,"latent":2,"hidden":5,"activation":"sigmoid"}`), 0o644)
	if _, err := Load(b, mismatch); err == nil || errors.Is(err, ErrNoVAE) {
		t.Error("Load of weights that do not fit the spec succeeded")
	}
	badSpec := t.TempDir()
	_ = os.WriteFile(filepath.Join(badSpec, SpecFile), []byte(`{"num_features":2,"latent":0,"hidden":4,"activation":"sigmoid"}`), 0o644)
	if _, err := Load(b, badSpec); err == nil || !strings.Contains(err.Error(), "Latent") {
		t.Errorf("Load of an invalid spec: err = %v", err)
	}
}

func TestProvenanceRoundTrip(t *testing.T) {
	b := testBackend(t)
	v, err := New(b, Spec{NumFeatures: 2, Latent: 2, Hidden: 4, Activation: "sigmoid"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v.Provenance() != (models.Provenance{}) {
		t.Errorf("a new VAE has provenance %+v, want zero", v.Provenance())
	}
	p := models.Provenance{Dataset: "moons", Seed: 42, Split: "moons: 600 train / 150 test, seed 42", Mode: "paper",
		Kind: "vae", Training: models.Training{Epochs: 100, BatchSize: 50, LearningRate: 1e-3, Objective: "vae"}}
	v.SetProvenance(p)
	dir := filepath.Join(t.TempDir(), "vae")
	if err := v.Save(dir); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, SpecFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"provenance"`) || !strings.Contains(string(raw), `"seed": 42`) {
		t.Errorf("vae.json holds no provenance with seed 42:\n%s", raw)
	}
	loaded, err := Load(b, dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Provenance() != p {
		t.Errorf("loaded provenance %+v, saved %+v", loaded.Provenance(), p)
	}
	// A vae.json of an older eccco (no provenance) loads with the zero provenance.
	if err := os.WriteFile(filepath.Join(dir, SpecFile), []byte(`{"num_features":2,"latent":2,"hidden":4,"activation":"sigmoid"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if old, err := Load(b, dir); err != nil || old.Provenance() != (models.Provenance{}) {
		t.Errorf("legacy vae.json: %v, provenance %+v", err, old.Provenance())
	}
	// A model's directory is not a VAE's: nothing is written over it.
	modelDir := filepath.Join(t.TempDir(), "mlp")
	_ = os.MkdirAll(modelDir, 0o755)
	_ = os.WriteFile(filepath.Join(modelDir, models.SpecFile), []byte("{}"), 0o644)
	if err := CheckSaveDir(modelDir); !errors.Is(err, ErrExists) {
		t.Errorf("CheckSaveDir of a model directory: err = %v, want ErrExists", err)
	}
	if err := CheckSaveDir(filepath.Join(t.TempDir(), "new")); err != nil {
		t.Errorf("CheckSaveDir of a new directory: %v", err)
	}
	if err := v.Replace(modelDir); !errors.Is(err, ErrExists) {
		t.Errorf("saving a VAE over a model directory: err = %v, want ErrExists", err)
	}
}

// Training chunkSize minibatches per graph call gives the weights, the three loss terms and the step count
// of one minibatch per call, bit for bit on the pure-Go backend (on XLA, which compiles the two graphs
// apart, within 10⁻⁴ relative), with the L2 penalty on and epochs of 13 batches: one chunk of 10, two
// single whole batches and a partial one, so that the noise of each minibatch must be drawn in the same
// order both ways.
func TestTrainingChunksMatchOneStepPerCall(t *testing.T) {
	b := testBackend(t)
	split, err := data.Load("moons", data.Options{Seed: 1, N: 400})
	if err != nil {
		t.Fatal(err)
	}
	const batch = 16
	ds := *split.Train
	ds.X, ds.Y = ds.X[:(13*batch-3)*ds.D()], ds.Y[:13*batch-3]
	xla := strings.HasPrefix(strings.ToLower(b.Name()), "xla")
	same := func(a, w float64) bool {
		if xla {
			return math.Abs(a-w) <= 1e-4*max(1, math.Abs(w))
		}
		return a == w
	}
	const chunkSize = 10
	fit := func(perCall int) (*VAE, *History) {
		v, err := New(b, moonsSpec(2), 7)
		if err != nil {
			t.Fatal(err)
		}
		h, err := train(context.Background(), b, v, &ds, TrainOptions{Epochs: 2, BatchSize: batch, L2: 0.01, Seed: 9}, perCall)
		if err != nil {
			t.Fatal(err)
		}
		return v, h
	}
	vw, hw := fit(1)
	vg, hg := fit(chunkSize)
	if hg.Steps != hw.Steps || hw.Steps != 2*13 {
		t.Errorf("%d steps in chunks, %d one per call, want %d", hg.Steps, hw.Steps, 2*13)
	}
	for i := range hw.Loss {
		for _, term := range []struct {
			name      string
			got, want float64
		}{{"loss", hg.Loss[i], hw.Loss[i]}, {"reconstruction", hg.Reconstruction[i], hw.Reconstruction[i]}, {"KL", hg.KL[i], hw.KL[i]}} {
			if !same(term.got, term.want) {
				t.Errorf("epoch %d %s %v in chunks, %v one per call", i+1, term.name, term.got, term.want)
			}
		}
	}
	ww, wg := weights(vw), weights(vg)
	if len(ww) != 8 {
		t.Fatalf("%d trainable variables, want 8", len(ww))
	}
	for path, want := range ww {
		for i := range want {
			if !same(float64(wg[path][i]), float64(want[i])) {
				t.Fatalf("%s[%d] is %v in chunks, %v one per call", path, i, wg[path][i], want[i])
			}
		}
	}
}

package models

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func setVar[S tensors.MultiDimensionSlice](t *testing.T, m *Model, path string, value S) {
	t.Helper()
	v := m.Store().GetVariable(path)
	if v == nil {
		t.Fatalf("no variable %s", path)
	}
	v.MustSetValue(tensors.FromValue(value))
}

// A 2-2-2 relu MLP with hand-set weights: the logits are computed by hand below.
func TestMLPLogitsMatchHandComputation(t *testing.T) {
	b := testBackend(t)
	m, err := New(b, Spec{Kind: KindMLP, NumFeatures: 2, NumClasses: 2, Hidden: 2, Layers: 1, Activation: "relu", Members: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	setVar(t, m, "/hidden0/weights", [][][]float32{{{1, -1}, {2, 0.5}}}) // [member, in, out]
	setVar(t, m, "/hidden0/biases", [][][]float32{{{0, -1}}})
	setVar(t, m, "/readout/weights", [][][]float32{{{1, 0}, {-2, 3}}})
	setVar(t, m, "/readout/biases", [][][]float32{{{0.5, 0}}})
	// x = (1, 2): h = relu((1·1 + 2·2 + 0, 1·(−1) + 2·0.5 − 1)) = relu(5, −1) = (5, 0)
	// logits = (5·1 + 0·(−2) + 0.5, 5·0 + 0·3 + 0) = (5.5, 0)
	// x = (−1, 1): h = relu((−1 + 2, 1 + 0.5 − 1)) = (1, 0.5); logits = (1 − 1 + 0.5, 1.5) = (0.5, 1.5)
	got, err := Logits(b, m, []float32{1, 2, -1, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{5.5, 0, 0.5, 1.5}
	for i := range want {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("logits = %v, want %v", got, want)
		}
	}
	probs, err := Probabilities(b, m, []float32{1, 2, -1, 1})
	if err != nil {
		t.Fatal(err)
	}
	// softmax(0.5, 1.5)[1] = 1/(1+e^−1)
	if p := probs[3]; math.Abs(float64(p)-1/(1+math.Exp(-1))) > 1e-6 {
		t.Errorf("p(class 1 | (−1,1)) = %v, want σ(1)", p)
	}
	pred, _ := Predict(b, m, []float32{1, 2, -1, 1})
	if pred[0] != 0 || pred[1] != 1 {
		t.Errorf("predictions = %v, want [0 1]", pred)
	}
}

// An ensemble of two linear members: its logits are the mean of the hand-set members' logits.
func TestEnsembleAveragesMemberLogits(t *testing.T) {
	b := testBackend(t)
	m, err := New(b, Spec{Kind: KindMLPEnsemble, NumFeatures: 1, NumClasses: 2, Hidden: 1, Layers: 0, Activation: "relu", Members: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	setVar(t, m, "/readout/weights", [][][]float32{{{1, 2}}, {{3, -2}}}) // [member, in, out]
	setVar(t, m, "/readout/biases", [][][]float32{{{0, 0}}, {{1, 1}}})
	got, err := Logits(b, m, []float32{2})
	if err != nil {
		t.Fatal(err)
	}
	// member0: (2, 4); member1: (7, −3); mean: (4.5, 0.5)
	if math.Abs(float64(got[0])-4.5) > 1e-6 || math.Abs(float64(got[1])-0.5) > 1e-6 {
		t.Fatalf("ensemble logits = %v, want [4.5 0.5]", got)
	}
	member1, _, err := Outputs(b, m, []float32{2}, func(c Classifier, x *graph.Node) *graph.Node { return c.(*Model).MemberLogits(x, 1) })
	if err != nil {
		t.Fatal(err)
	}
	if member1[0] != 7 || member1[1] != -3 {
		t.Errorf("member 1 logits = %v, want [7 -3]", member1)
	}
}

func TestScoresFromPredictionsHandComputed(t *testing.T) {
	// Confusion (rows true, cols predicted): class0: 3 right, 1 → class1; class1: 1 → class0, 1 right;
	// class2: 2 → class1 (never predicted class 2).
	yTrue := []int{0, 0, 0, 0, 1, 1, 2, 2}
	yPred := []int{0, 0, 0, 1, 0, 1, 1, 1}
	s, err := ScoresFromPredictions(yTrue, yPred, 3)
	if err != nil {
		t.Fatal(err)
	}
	// precision: 3/4, 1/4, 0 → macro 1/3; recall: 3/4, 1/2, 0; F1: 3/4, 1/3, 0 → macro 13/36.
	check := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("accuracy", s.Accuracy, 4.0/8)
	check("precision", s.Precision, 1.0/3)
	check("f1", s.F1, 13.0/36)
	if _, err := ScoresFromPredictions([]int{0}, []int{3}, 2); err == nil {
		t.Error("prediction outside [0,k) accepted")
	}
}

// toyData: class = 1 if x0 + x1 > 0, a rule the MLP must learn to near-perfect accuracy.
func toyData(n int, seed uint64) *data.Dataset {
	rng := data.NewRand(seed)
	ds := &data.Dataset{Name: "toy", FeatureNames: []string{"a", "b"}, ClassNames: []string{"neg", "pos"}}
	for range n {
		a, b := rng.Float64()*2-1, rng.Float64()*2-1
		if math.Abs(a+b) < 0.05 {
			a += 0.1 * math.Copysign(1, a+b)
		}
		y := 0
		if a+b > 0 {
			y = 1
		}
		ds.X = append(ds.X, float32(a), float32(b))
		ds.Y = append(ds.Y, y)
	}
	return ds
}

func TestTrainingLearnsAndIsReproducible(t *testing.T) {
	b := testBackend(t)
	train, test := toyData(400, 1), toyData(200, 2)
	spec := Spec{Kind: KindMLPEnsemble, NumFeatures: 2, NumClasses: 2, Hidden: 16, Layers: 2, Activation: "swish", Members: 3}
	fit := func(seed uint64) (*Model, *History) {
		m, err := New(b, spec, seed)
		if err != nil {
			t.Fatal(err)
		}
		h, err := Train(context.Background(), b, m, train, TrainOptions{Epochs: 30, BatchSize: 32, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return m, h
	}
	m1, h1 := fit(7)
	if h1.Loss[len(h1.Loss)-1] >= h1.Loss[0]/2 {
		t.Errorf("loss did not fall: first %.4f, last %.4f", h1.Loss[0], h1.Loss[len(h1.Loss)-1])
	}
	if want := 30 * 13; h1.Steps != want { // ceil(400/32) = 13 batches per epoch, last one partial
		t.Errorf("steps = %d, want %d", h1.Steps, want)
	}
	s, err := Evaluate(b, m1, test)
	if err != nil {
		t.Fatal(err)
	}
	if s.Accuracy < 0.95 {
		t.Errorf("test accuracy %.3f < 0.95 on a linear rule", s.Accuracy)
	}
	m2, _ := fit(7)
	m3, _ := fit(8)
	l1, _ := Logits(b, m1, test.X)
	l2, _ := Logits(b, m2, test.X)
	l3, _ := Logits(b, m3, test.X)
	same, differ := true, false
	for i := range l1 {
		same = same && l1[i] == l2[i]
		differ = differ || l1[i] != l3[i]
	}
	if !same {
		t.Error("same seed gave different models")
	}
	if !differ {
		t.Error("different seeds gave identical models")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	b := testBackend(t)
	train := toyData(200, 3)
	m, err := New(b, Spec{Kind: KindMLPEnsemble, NumFeatures: 2, NumClasses: 2, Hidden: 8, Layers: 2, Activation: "relu", Members: 2, Dataset: "toy"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Train(context.Background(), b, m, train, TrainOptions{Epochs: 2, BatchSize: 50}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir); !errors.Is(err, ErrExists) { // Save never replaces a saved model
		t.Fatalf("second save: err = %v, want ErrExists", err)
	}
	if err := m.Replace(dir); err != nil { // replacing one on request works
		t.Fatalf("second save with Replace: %v", err)
	}
	loaded, err := Load(b, dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Spec() != m.Spec() {
		t.Errorf("spec %+v, want %+v", loaded.Spec(), m.Spec())
	}
	want, _ := Logits(b, m, train.X)
	got, err := Logits(b, loaded, train.X)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("row %d: loaded logits %v, saved %v", i/2, got[i], want[i])
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp") {
			t.Errorf("temporary directory %s left behind", e.Name())
		}
	}

	// A spec that does not match the weights is an error, not a silently re-initialised model.
	spec := m.Spec()
	spec.Layers = 3
	raw := []byte(`{"kind":"mlp-ensemble","num_features":2,"num_classes":2,"hidden":8,"layers":3,"activation":"relu","members":2}`)
	if err := os.WriteFile(filepath.Join(dir, SpecFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(b, dir); err == nil || !strings.Contains(err.Error(), "hidden2") {
		t.Errorf("loading weights for a mismatched spec: err = %v, want a missing-weight error", err)
	}
	if _, err := Load(b, t.TempDir()); !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "no saved model") {
		t.Errorf("loading an empty dir: err = %v", err)
	}
}

func TestBadInputsAreErrors(t *testing.T) {
	b := testBackend(t)
	for _, spec := range []Spec{
		{Kind: "svm", NumFeatures: 2, NumClasses: 2, Hidden: 4, Layers: 1, Activation: "relu", Members: 1},
		{Kind: KindMLP, NumFeatures: 0, NumClasses: 2, Hidden: 4, Layers: 1, Activation: "relu", Members: 1},
		{Kind: KindMLP, NumFeatures: 2, NumClasses: 1, Hidden: 4, Layers: 1, Activation: "relu", Members: 1},
		{Kind: KindMLP, NumFeatures: 2, NumClasses: 2, Hidden: 4, Layers: 1, Activation: "tanhh", Members: 1},
		{Kind: KindMLP, NumFeatures: 2, NumClasses: 2, Hidden: 4, Layers: 1, Activation: "relu", Members: 3},
		{Kind: KindLeNet, NumFeatures: 10, NumClasses: 2, Members: 1},
	} {
		if _, err := New(b, spec, 0); err == nil {
			t.Errorf("New(%+v) accepted an invalid spec", spec)
		}
	}
	m, err := New(b, Spec{Kind: KindMLP, NumFeatures: 3, NumClasses: 2, Hidden: 4, Layers: 1, Activation: "relu", Members: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Predict(b, m, []float32{1, 2}); err == nil {
		t.Error("Predict accepted 2 values for 3 features")
	}
	if _, err := Train(context.Background(), b, m, toyData(10, 1), TrainOptions{Epochs: 1, BatchSize: 5}); err == nil {
		t.Error("Train accepted 2-feature data for a 3-feature model")
	}
	if _, err := ParseKind("ensemble"); err == nil || !strings.Contains(err.Error(), "mlp-ensemble") {
		t.Errorf("ParseKind error %v does not list the known models", err)
	}
}

func TestLeNet5Shapes(t *testing.T) {
	b := testBackend(t)
	m, err := New(b, Spec{Kind: KindLeNet, NumFeatures: 784, NumClasses: 10, Members: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Logits(b, m, make([]float32, 3*784))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 30 {
		t.Errorf("LeNet-5 gave %d logits for 3 images, want 30", len(out))
	}
	// Parameter count of this LeNet-5: conv1 5·5·1·6+6, conv2 5·5·6·16+16, dense 400·120+120, 120·84+84, 84·10+10.
	want := (150 + 6) + (2400 + 16) + (48000 + 120) + (10080 + 84) + (840 + 10)
	got := 0
	for v := range m.Store().IterVariables() {
		if v.Trainable {
			got += v.Shape().Size()
		}
	}
	if got != want {
		t.Errorf("LeNet-5 has %d parameters, want %d", got, want)
	}
}

// The parallel executor of compute v0.1.5 deadlocks when several large matrix products run at once (five
// ensemble members on a 4096-row chunk of MNIST-sized inputs). The default backend must not.
func TestDefaultBackendPredictsLargeEnsembleChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	b := testBackend(t)
	m, err := New(b, Spec{Kind: KindMLPEnsemble, NumFeatures: 784, NumClasses: 10, Hidden: 32, Layers: 1, Activation: "relu", Members: 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float32, (PredictionChunk+10)*784)
	for i := range x {
		x[i] = float32(i%255)/127.5 - 1
	}
	done := make(chan error, 1)
	go func() { _, err := Predict(b, m, x); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("prediction did not finish in 60 s: the backend's executor deadlocked")
	}
}

// The authors' LeNet-5 pads its second convolution too (Spec.Conv2Padding "same"): the pooled map is
// 7×7×16 = 784 features, so the first dense layer has 784·120 + 120 weights instead of 400·120 + 120.
func TestLeNet5SameShapes(t *testing.T) {
	b := testBackend(t)
	m, err := New(b, Spec{Kind: KindLeNet, NumFeatures: 784, NumClasses: 10, Members: 1, Conv2Padding: PaddingSame}, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Logits(b, m, make([]float32, 2*784))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 20 {
		t.Errorf("LeNet-5 (same) gave %d logits for 2 images, want 20", len(out))
	}
	want := (150 + 6) + (2400 + 16) + (784*120 + 120) + (10080 + 84) + (840 + 10)
	got := 0
	for v := range m.Store().IterVariables() {
		if v.Trainable {
			got += v.Shape().Size()
		}
	}
	if got != want {
		t.Errorf("LeNet-5 (same) has %d parameters, want %d", got, want)
	}
	if _, err := New(b, Spec{Kind: KindLeNet, NumFeatures: 784, NumClasses: 10, Members: 1, Conv2Padding: "full"}, 1); err == nil {
		t.Error("an unknown padding was accepted")
	}
}

// Training trainChunk minibatches per graph call gives the weights, losses and step count of one
// minibatch per call, bit for bit on the pure-Go backend (on XLA, which compiles the two graphs apart,
// within 10⁻⁴ relative): an MLP, a bagged ensemble (members on their own orders) and LeNet-5, with epochs
// of 13 batches (one chunk, two single whole batches and a partial one).
func TestTrainingChunksMatchOneStepPerCall(t *testing.T) {
	b := testBackend(t)
	toy := toyData(400, 3)
	img := &data.Dataset{Name: "img", ClassNames: []string{"0", "1", "2"}}
	for j := range 784 {
		img.FeatureNames = append(img.FeatureNames, fmt.Sprint("p", j))
	}
	for i := range 13*8 - 3 {
		for j := range 784 {
			img.X = append(img.X, float32(math.Sin(float64(i*31+j*7)))) // a fixed, varied pattern
		}
		img.Y = append(img.Y, i%3)
	}
	xla := strings.HasPrefix(strings.ToLower(b.Name()), "xla")
	same := func(a, w float64) bool {
		if xla {
			return math.Abs(a-w) <= 1e-4*max(1, math.Abs(w))
		}
		return a == w
	}
	for _, c := range []struct {
		spec    Spec
		ds      *data.Dataset
		batch   int
		bagging float64
	}{
		{Spec{Kind: KindMLP, NumFeatures: 2, NumClasses: 2, Hidden: 16, Layers: 2, Activation: "relu", Members: 1}, toy, 32, 0},
		{Spec{Kind: KindMLPEnsemble, NumFeatures: 2, NumClasses: 2, Hidden: 8, Layers: 1, Activation: "swish", Members: 3}, toy, 25, 0.8},
		{Spec{Kind: KindLeNet, NumFeatures: 784, NumClasses: 3, Members: 1}, img, 8, 0},
	} {
		fit := func(chunk int) ([]float32, *History) {
			m, err := New(b, c.spec, 5)
			if err != nil {
				t.Fatal(err)
			}
			h, err := train(context.Background(), b, m, c.ds, TrainOptions{Epochs: 2, BatchSize: c.batch, Seed: 9, BaggingFraction: c.bagging}, chunk)
			if err != nil {
				t.Fatal(err)
			}
			l, err := Logits(b, m, c.ds.X[:20*c.spec.NumFeatures])
			if err != nil {
				t.Fatal(err)
			}
			return l, h
		}
		want, hw := fit(1)
		got, hg := fit(trainChunk)
		if hg.Steps != hw.Steps || hw.Steps != 2*13 {
			t.Errorf("%s: %d steps in chunks, %d one per call, want %d", c.spec.Kind, hg.Steps, hw.Steps, 2*13)
		}
		for i := range hw.Loss {
			if !same(hg.Loss[i], hw.Loss[i]) {
				t.Errorf("%s: epoch %d loss %v in chunks, %v one per call", c.spec.Kind, i+1, hg.Loss[i], hw.Loss[i])
			}
		}
		for i := range want {
			if !same(float64(got[i]), float64(want[i])) {
				t.Fatalf("%s: logit %d is %v in chunks, %v one per call", c.spec.Kind, i, got[i], want[i])
			}
		}
	}
}

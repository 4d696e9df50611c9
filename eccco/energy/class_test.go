package energy

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
)

// blobs returns n points per class around (−1, −1), (1, 1) and (−1, 1) with sd 0.3.
func blobs(n int, seed uint64) *data.Dataset {
	rng := data.NewRand(seed)
	centres := [][2]float64{{-1, -1}, {1, 1}, {-1, 1}}
	ds := &data.Dataset{Name: "blobs", FeatureNames: []string{"x1", "x2"}, ClassNames: []string{"a", "b", "c"}}
	for i := range n * len(centres) {
		c := i % len(centres)
		ds.X = append(ds.X, float32(centres[c][0]+0.3*rng.NormFloat64()), float32(centres[c][1]+0.3*rng.NormFloat64()))
		ds.Y = append(ds.Y, c)
	}
	return ds
}

// SGLD samples conditioned on class k (the paper's inference setting: 50 chains from the prior, φ = 2,
// σ = 0.01, 500 steps, keep 25) are classified as k by a trained MLP.
func TestClassSamplesArePredictedAsTheirClass(t *testing.T) {
	b := testBackend(t)
	ds := blobs(100, 3)
	m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: 2, NumClasses: 3, Hidden: 16, Layers: 2, Activation: "relu", Members: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := models.Train(context.Background(), b, m, ds, models.TrainOptions{Epochs: 30, BatchSize: 32, LearningRate: 0.01, Seed: 2}); err != nil {
		t.Fatal(err)
	}
	prior, err := PriorFromData(ds)
	if err != nil {
		t.Fatal(err)
	}
	per, err := SamplePerClass(context.Background(), b, m, DefaultClassOptions(prior), 11)
	if err != nil {
		t.Fatal(err)
	}
	for k, cs := range per {
		if cs.Class != k || len(cs.X) != DefaultKeep*2 || len(cs.Energies) != DefaultKeep {
			t.Fatalf("class %d: got class %d with %d values and %d energies", k, cs.Class, len(cs.X), len(cs.Energies))
		}
		pred, err := models.Predict(b, m, cs.X)
		if err != nil {
			t.Fatal(err)
		}
		agree := 0
		for _, p := range pred {
			if p == k {
				agree++
			}
		}
		share := float64(agree) / float64(len(pred))
		t.Logf("class %d: %.0f%% of the %d lowest-energy samples predicted as %d; energies %.2f … %.2f", k, 100*share, len(pred), k, cs.Energies[0], cs.Energies[len(cs.Energies)-1])
		if share < 0.9 {
			t.Errorf("class %d: only %.0f%% of samples are predicted as their class", k, 100*share)
		}
		for i := 1; i < len(cs.Energies); i++ {
			if cs.Energies[i] < cs.Energies[i-1] {
				t.Errorf("class %d: energies not ascending: %v", k, cs.Energies)
				break
			}
		}
		for i, v := range cs.X {
			if v < prior.Lower[i%2] || v > prior.Upper[i%2] {
				t.Fatalf("class %d: sample value %v outside the prior box [%v, %v]", k, v, prior.Lower[i%2], prior.Upper[i%2])
			}
		}
	}
	// One class alone gives a sample of the same size, and is seeded.
	one, err := SampleClass(context.Background(), b, m, 1, ClassOptions{SGLD: DefaultSGLD(), Prior: prior, Chains: 10, Keep: 10}, 5)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := SampleClass(context.Background(), b, m, 1, ClassOptions{SGLD: DefaultSGLD(), Prior: prior, Chains: 10, Keep: 10}, 5)
	if len(one.X) != 20 || one.X[3] != again.X[3] {
		t.Errorf("SampleClass: %d values; repeat gave %v vs %v", len(one.X), one.X[3], again.X[3])
	}
}

// Clipping bounds every gradient step by φ/2·ClipGrad and clamping keeps chains in the box.
func TestClipAndClamp(t *testing.T) {
	b := testBackend(t)
	// E(x) = −100·Σx: gradient −100 everywhere, so an unclipped step moves by +φ/2·100.
	lin := Unconditional(func(x *Node) *Node { return MulScalar(ReduceSum(x, -1), -100) })
	cfg := SGLD{StepSize: 2, NoiseSD: 0, Steps: 3, ClipGrad: 0.01}
	got, en, err := cfg.Sample(context.Background(), b, lin, []float32{0, 0}, nil, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got {
		if math.Abs(float64(v)-0.03) > 1e-6 {
			t.Errorf("clipped steps moved to %v, want 0.03 (3 steps of φ/2·0.01)", got)
		}
	}
	if math.Abs(float64(en[0])+6) > 1e-4 {
		t.Errorf("energy %v, want −100·0.06 = −6", en[0])
	}
	cfg = SGLD{StepSize: 2, NoiseSD: 0.1, Steps: 7, StepsPerCall: 3, Lower: []float32{-1, -2}, Upper: []float32{0.5, 0.25}}
	got, _, err = cfg.Sample(context.Background(), b, lin, []float32{0, 0, -1, -1}, nil, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{0.5, 0.25, 0.5, 0.25}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("clamped samples %v, want %v", got, want)
			break
		}
	}
	// The batch-mean quirk divides the gradient by the number of chains (2): steps of φ/2·100/2 = 50.
	cfg = SGLD{StepSize: 2, NoiseSD: 0, Steps: 1, BatchMeanGrad: true}
	got, _, _ = cfg.Sample(context.Background(), b, lin, []float32{0, 0, 0, 0}, nil, 2, 1)
	if got[0] != 50 {
		t.Errorf("batch-mean step moved to %v, want 50", got[0])
	}
}

func TestPriorBufferAndLowestEnergy(t *testing.T) {
	ds := &data.Dataset{X: []float32{0, 10, 2, 10, 4, 10}, Y: []int{0, 0, 0}, FeatureNames: []string{"a", "b"}, ClassNames: []string{"c", "d"}}
	p, err := PriorFromData(ds)
	if err != nil {
		t.Fatal(err)
	}
	// mean 2, sample sd 2 → [−4, 8]; the constant feature has scale 1 (FitStandardizer) → [7, 13].
	if p.Lower[0] != -4 || p.Upper[0] != 8 || p.Lower[1] != 7 || p.Upper[1] != 13 {
		t.Errorf("prior %v / %v, want [−4, 8] and [7, 13]", p.Lower, p.Upper)
	}
	img := &data.Dataset{X: []float32{0.5}, Y: []int{0}, FeatureNames: []string{"p"}, ClassNames: []string{"c"}, Image: &data.ImageShape{Height: 1, Width: 1, Channels: 1}}
	if pi, _ := PriorFromData(img); pi.Lower[0] != -1 || pi.Upper[0] != 1 {
		t.Errorf("image prior %v", pi)
	}
	rng := data.NewRand(1)
	draws := p.Draw(1000, rng)
	for i, v := range draws {
		if v < p.Lower[i%2] || v > p.Upper[i%2] {
			t.Fatalf("draw %v outside the box", v)
		}
	}

	buf := NewReplayBuffer(p)
	buf.Capacity = 3
	first := buf.Init(5, rng) // empty buffer: all from the prior
	if len(first) != 10 {
		t.Fatalf("Init returned %d values", len(first))
	}
	if err := buf.Add([]float32{100, 100, 101, 101, 102, 102, 103, 103}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 3 {
		t.Errorf("buffer holds %d, want capacity 3", buf.Len())
	}
	fresh, fromBuffer := 0, 0
	x := buf.Init(2000, rng)
	for i := 0; i < len(x); i += 2 {
		switch {
		case x[i] == 100:
			t.Fatalf("the oldest sample was not evicted")
		case x[i] >= 101:
			fromBuffer++
		default:
			fresh++
		}
	}
	share := float64(fresh) / 2000
	t.Logf("fresh starts: %.1f%% (want 5%%)", 100*share)
	if math.Abs(share-0.05) > 0.02 {
		t.Errorf("fresh share %.3f, want 0.05", share)
	}
	if err := buf.Add([]float32{1}); err == nil {
		t.Errorf("Add accepted a partial row")
	}

	sel, e, idx, err := LowestEnergy([]float32{0, 0, 1, 1, 2, 2, 3, 3}, []float32{3, float32(math.NaN()), -1, 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if idx[0] != 2 || idx[1] != 3 || idx[2] != 0 || e[0] != -1 || sel[0] != 2 || sel[5] != 0 {
		t.Errorf("LowestEnergy = %v %v %v", sel, e, idx)
	}
	if _, _, _, err := LowestEnergy([]float32{1}, []float32{1}, 2); err == nil {
		t.Errorf("LowestEnergy accepted n > samples")
	}
}

func TestBadInputsAreErrors(t *testing.T) {
	b := testBackend(t)
	e := gaussianEnergy([]float64{0}, []float64{1})
	ctx := context.Background()
	bad := []SGLD{
		{StepSize: 0, Steps: 1},
		{StepSize: 1, Steps: 0},
		{StepSize: 1, Steps: 1, NoiseSD: -1},
		{StepSize: 1, Steps: 1, ClipGrad: -1},
		{StepSize: 1, Steps: 1, Lower: []float32{0}},
		{StepSize: 1, Steps: 1, Lower: []float32{1}, Upper: []float32{0}},
	}
	for i, cfg := range bad {
		if _, _, err := cfg.Sample(ctx, b, e, []float32{0}, nil, 1, 1); err == nil {
			t.Errorf("config %d accepted: %+v", i, cfg)
		}
	}
	cfg := DefaultSGLD()
	if _, _, err := cfg.Sample(ctx, b, e, []float32{0, 1, 2}, nil, 2, 1); err == nil {
		t.Errorf("partial row accepted")
	}
	if _, _, err := cfg.Sample(ctx, b, e, []float32{0, 1}, []int32{0}, 1, 1); err == nil {
		t.Errorf("wrong number of labels accepted")
	}
	// An energy of the wrong shape is an error, not a panic.
	wrong := Unconditional(func(x *Node) *Node { return x })
	if _, _, err := cfg.Sample(ctx, b, wrong, []float32{0, 1}, nil, 2, 1); err == nil {
		t.Errorf("energy of shape [B, D] accepted")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := cfg.Sample(cancelled, b, e, []float32{0}, nil, 1, 1); err == nil {
		t.Errorf("cancelled context ignored")
	}
	prior, _ := NewPrior([]float32{0}, []float32{1})
	clf := smallNet()
	if _, err := SampleClass(ctx, b, clf, 0, DefaultClassOptions(prior), 1); err == nil {
		t.Errorf("prior of the wrong width accepted")
	}
	if _, err := SampleClass(ctx, b, clf, 5, ClassOptions{SGLD: cfg, Prior: Prior{Lower: []float32{0, 0, 0}, Upper: []float32{1, 1, 1}}}, 1); err == nil {
		t.Errorf("class out of range accepted")
	}
	if _, err := NewPrior([]float32{0, 1}, []float32{1}); err == nil {
		t.Errorf("mismatched prior bounds accepted")
	}
}

// SampleClasses draws several classes' chains in one batch, and each class's samples are the ones
// SampleClass draws for that class alone with the same seed, bit for bit (starts, noise and the kept
// lowest-energy rows; their energies, evaluated in a batch of another size, to rounding), with and
// without shared starts; the order of the classes does not matter.
func TestSampleClassesEqualsOneClassAtATime(t *testing.T) {
	b := testBackend(t)
	ds := blobs(20, 3)
	m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: 2, NumClasses: 3, Hidden: 8, Layers: 2, Activation: "relu", Members: 1}, 4)
	if err != nil {
		t.Fatal(err)
	}
	prior, err := PriorFromData(ds)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, shared := range []float64{0, 0.5} {
		o := DefaultClassOptions(prior)
		o.SGLD.Steps, o.Chains, o.Keep, o.SharedStart = 60, 6, 4, shared
		classes, seeds := []int{2, 0, 1}, []uint64{7, 9, 7}
		got, err := SampleClasses(ctx, b, m, classes, o, seeds)
		if err != nil {
			t.Fatal(err)
		}
		rev, err := SampleClasses(ctx, b, m, []int{1, 2}, o, []uint64{7, 7})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range classes {
			one, err := SampleClass(ctx, b, m, c, o, seeds[i])
			if err != nil {
				t.Fatal(err)
			}
			if got[i].Class != c || !sameFloats(got[i].X, one.X) || !closeFloats(got[i].Energies, one.Energies, 1e-6) {
				t.Errorf("shared start %v, class %d (seed %d): batched %v %v, alone %v %v", shared, c, seeds[i], got[i].X, got[i].Energies, one.X, one.Energies)
			}
		}
		if !sameFloats(rev[0].X, got[2].X) || !sameFloats(rev[1].X, got[0].X) {
			t.Errorf("shared start %v: a class's samples depend on the classes drawn with it", shared)
		}
	}
	if _, err := SampleClasses(ctx, b, m, []int{0, 1}, DefaultClassOptions(prior), []uint64{1}); err == nil {
		t.Error("two classes and one seed: no error")
	}
}

// sameFloats reports a and b equal bit for bit.
func sameFloats(a, b []float32) bool {
	return slices.EqualFunc(a, b, func(x, y float32) bool { return math.Float32bits(x) == math.Float32bits(y) })
}

func closeFloats(a, b []float32, rel float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i])-float64(b[i])) > rel*max(1, math.Abs(float64(b[i]))) {
			return false
		}
	}
	return true
}

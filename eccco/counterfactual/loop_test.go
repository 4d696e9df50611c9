package counterfactual

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// randomRequest draws a request over rows of fact (n rows of d features): a random subset of rows, bounds
// (none, lo/hi, or narrowed so that some factuals lie outside them), mutability, rule, threshold,
// tolerance, seed and MaxIterations between 1 and 35 (below, at and across multiples of searchChunk).
func randomRequest(r *rand.Rand, fact []float32, targets []int, d int, lo, hi []float32, oneHot [][]int) Request {
	n := len(targets)
	rows := 1 + r.IntN(n)
	start := r.IntN(n - rows + 1)
	q := Request{Factuals: fact[start*d : (start+rows)*d], Targets: targets[start : start+rows],
		Rule: Rule(r.IntN(4)), MaxIterations: 1 + r.IntN(35), Threshold: []float64{0.5, 0.7, 0.9}[r.IntN(3)],
		GradientTol: []float64{0.01, 0.05, 0.2}[r.IntN(3)], Seed: r.Uint64(), OneHot: oneHot}
	switch r.IntN(3) {
	case 0:
		if oneHot != nil {
			q.Lower, q.Upper = lo, hi
		}
	case 1:
		q.Lower, q.Upper = lo, hi
	case 2:
		q.Lower, q.Upper = make([]float32, d), make([]float32, d)
		for j := range d {
			w := hi[j] - lo[j]
			q.Lower[j], q.Upper[j] = lo[j]+0.2*w*r.Float32(), hi[j]-0.2*w*r.Float32()
		}
	}
	if r.IntN(2) == 0 {
		q.Mutability = make([]Mutability, d)
		for j := range q.Mutability {
			q.Mutability[j] = Mutability(r.IntN(4))
		}
	}
	return q
}

// checkChunksMatchHostLoop searches random requests with each generator with one call per step (the host
// loop, chunk = 1) and twice with a Searcher of searchChunk steps per graph call (its first search of a
// request takes one step per call, the second chunks), and wants the same bits (a few ulps on XLA:
// sameResult), the same steps and convergence.
func checkChunksMatchHostLoop(t *testing.T, b compute.Backend, m models.Classifier, gens []*Generator, fact []float32, targets []int,
	lo, hi []float32, oneHot [][]int, perGen int, seed uint64) {
	t.Helper()
	ctx := context.Background()
	d := m.NumFeatures()
	r := rand.New(rand.NewPCG(seed, 7))
	if onXLA(b) {
		perGen = 1 // XLA compiles every request's graphs, seconds each
	}
	for _, g := range gens {
		chunks, err := NewSearcher(b, m, g)
		if err != nil {
			t.Fatal(err)
		}
		host, err := NewSearcher(b, m, g)
		if err != nil {
			t.Fatal(err)
		}
		host.chunk = 1
		for i := range perGen {
			q := randomRequest(r, fact, targets, d, lo, hi, oneHot)
			what := fmt.Sprintf("%s, request %d (%d rows, T = %d, rule %d, bounds %v, mutability %v)", g.Name, i, len(q.Targets),
				q.MaxIterations, q.Rule, q.Lower != nil, q.Mutability)
			want, err := host.Search(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			for pass := range 2 {
				got, err := chunks.Search(ctx, q)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				sameResult(t, fmt.Sprintf("%s, pass %d", what, pass+1), want, got)
			}
		}
		chunks.Close()
		host.Close()
	}
}

// onXLA reports whether b is an XLA backend, where each graph compiles in seconds: the chunk tests then
// search fewer requests and generators (those whose step graphs differ most).
func onXLA(b compute.Backend) bool { return strings.HasPrefix(strings.ToLower(b.Name()), "xla") }

// Searches of searchChunk steps per graph call give the host loop's counterfactuals, steps and
// convergence, bit for bit on the pure-Go backend, for every generator of the paper in both modes (the
// authors'-code one adds REVISE's resampled latent codes, ECCCo+'s re-encoded PCA codes, bounds-blind JSMA
// and ECCCo's decaying energy term, a Stepwise generator) and for MAD-weighted Wachter, on random requests.
func TestChunksMatchHostLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model and a VAE")
	}
	b := testBackend(t)
	split, err := data.Load("moons", data.Options{Seed: 5, N: 400})
	if err != nil {
		t.Fatal(err)
	}
	m := trainMLP(t, b, split.Train, 20)
	p, in := testIngredients(t, b, m, split.Train)
	authors := in.WithAuthorsCode()
	mad, err := in.WithMADWachter(split.Train)
	if err != nil {
		t.Fatal(err)
	}
	decay := p
	decay.DecayRate, decay.DecayEvery = 0.1, 3
	var gens []*Generator
	add := func(name string, p Params, in Ingredients) {
		g, err := paperGenerator(name, p, in)
		if err != nil {
			t.Fatal(err)
		}
		gens = append(gens, g)
	}
	for _, name := range paperNames() {
		add(name, p, in)
	}
	for _, name := range []string{"Schut", "REVISE", "ECCCo+", "ECCCo"} {
		add(name, decay, authors)
	}
	add("Wachter", p, mad)
	if !gens[len(gens)-2].Stepwise {
		t.Fatal("the decaying ECCCo is not Stepwise")
	}
	if onXLA(b) { // the authors'-code four (JSMA, both re-encoding latent maps, Stepwise) and ECCCo-L1
		gens = append(gens[len(gens)-5:len(gens)-1], gens[slices.Index(paperNames(), "ECCCo-L1")])
	}
	fact, targets := factualsFor(t, b, m, split.Test, 30)
	lo, hi := split.Train.Bounds()
	checkChunksMatchHostLoop(t, b, m, gens, fact, targets, lo, hi, nil, 5, 1)
}

// The same with a one-hot group (features 3–5 of 6), on an untrained model, for the feature-space
// generators and a latent one.
func TestChunksMatchHostLoopOneHot(t *testing.T) {
	b := testBackend(t)
	const d, k, n = 6, 3, 90
	r := rand.New(rand.NewPCG(11, 12))
	ds := emptyDataset(d, "a", "b", "c")
	for i := range n {
		for range 3 {
			ds.X = append(ds.X, float32(r.NormFloat64()))
		}
		cat := r.IntN(3)
		for c := range 3 {
			ds.X = append(ds.X, map[bool]float32{true: 1, false: 0}[c == cat])
		}
		ds.Y = append(ds.Y, i%k)
	}
	m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: d, NumClasses: k, Hidden: 16, Layers: 2, Activation: "relu", Members: 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	c, err := conformal.Calibrate(b, m, ds, conformal.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	pca, err := FitPCA(ds, 4)
	if err != nil {
		t.Fatal(err)
	}
	p := Params{StepSize: 0.1, Cost: 0.1, SetSize: 0.2, Energy: 0.3}
	pred, err := models.Predict(b, m, ds.X)
	if err != nil {
		t.Fatal(err)
	}
	targets := make([]int, n)
	for i := range targets {
		targets[i] = (pred[i] + 1 + i%2) % k
	}
	lo, hi := []float32{-2, -2, -2, 0, 0, 0}, []float32{2, 2, 2, 1, 1, 1}
	gens := []*Generator{Wachter(p), Schut(p), ECCCo(p, c), ECCCoPlus(p, c, pca)}
	if onXLA(b) {
		gens = []*Generator{Schut(p), ECCCoPlus(p, c, pca)}
	}
	checkChunksMatchHostLoop(t, b, m, gens, ds.X, targets, lo, hi, [][]int{{3, 4, 5}}, 6, 2)
}

// A clamp shared by every row, passed as one row [1, D] and broadcast in the graph (what XLA's searches
// take), or shared by every value as one value (bounds the same for every feature, or none), gives the
// counterfactuals, steps and convergence of the clamp written out for every row [B, D], bit for bit, in
// the host loop and in chunks; with a feature that may not move both ways, or bounds that cross, the clamp
// stays per row.
func TestSharedClampMatchesPerRow(t *testing.T) {
	b := testBackend(t)
	const d, k, n = 5, 3, 40
	r := rand.New(rand.NewPCG(21, 22))
	ds := emptyDataset(d, "a", "b", "c")
	for i := range n {
		for range d {
			ds.X = append(ds.X, float32(2.5*r.NormFloat64())) // some rows start outside the bounds
		}
		ds.Y = append(ds.Y, i%k)
	}
	m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: d, NumClasses: k, Hidden: 8, Layers: 1, Activation: "relu", Members: 1}, 4)
	if err != nil {
		t.Fatal(err)
	}
	pred, err := models.Predict(b, m, ds.X)
	if err != nil {
		t.Fatal(err)
	}
	targets := make([]int, n)
	for i := range targets {
		targets[i] = (pred[i] + 1) % k
	}
	lo, hi := []float32{-2, -1, -2, -3, -2}, []float32{2, 1, 2, 3, 2}
	if c := projectionBounds(Request{Factuals: ds.X, Targets: targets, Lower: lo, Upper: hi}, n, d, true, true); c.rows != 1 || c.conflict != nil || !slices.Equal(c.lo, lo) {
		t.Fatalf("free features, shared: rows %d, conflict %v, lo %v; want 1 row, none, %v", c.rows, c.conflict != nil, c.lo, lo)
	}
	if c := projectionBounds(Request{Factuals: ds.X, Targets: targets, Lower: lo, Upper: hi, Mutability: []Mutability{Both, Increase, Both, Both, Both}}, n, d, true, true); c.rows != n {
		t.Fatalf("an increase-only feature, shared: %d rows, want %d", c.rows, n)
	}
	same := func(v float32) []float32 { return []float32{v, v, v, v, v} }
	for _, q := range []Request{{}, {Lower: same(-2), Upper: same(2)}} {
		q.Factuals, q.Targets = ds.X, targets
		if c := projectionBounds(q, n, d, false, true); c.rows != 1 || c.d != 1 || c.conflict != nil {
			t.Fatalf("bounds %v … %v for every feature: %d × %d values, want one", q.Lower, q.Upper, c.rows, c.d)
		}
	}
	if c := projectionBounds(Request{Factuals: ds.X, Targets: targets, Lower: same(2), Upper: same(-2)}, n, d, false, true); c.rows != n || c.conflict == nil {
		t.Fatalf("crossed bounds for every feature: %d rows, conflict %v; want %d rows with the conflict", c.rows, c.conflict != nil, n)
	}
	ctx := context.Background()
	p := Params{StepSize: 0.1, Cost: 0.1}
	for _, q := range []Request{
		{Factuals: ds.X, Targets: targets, Lower: lo, Upper: hi, MaxIterations: 25},
		{Factuals: ds.X, Targets: targets, Lower: lo, Upper: hi, MaxIterations: 25, Mutability: []Mutability{Both, Decrease, Both, Increase, Both}},
		{Factuals: ds.X, Targets: targets, Lower: same(-2), Upper: same(2), MaxIterations: 25},
		{Factuals: ds.X, Targets: targets, MaxIterations: 25},
	} {
		perRow, err := NewSearcher(b, m, Wachter(p))
		if err != nil {
			t.Fatal(err)
		}
		shared, err := NewSearcher(b, m, Wachter(p))
		if err != nil {
			t.Fatal(err)
		}
		perRow.shareClamp, perRow.oneClamp, shared.shareClamp, shared.oneClamp = false, false, true, true
		for pass := range 2 { // the host loop, then chunks
			want, err := perRow.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := shared.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			sameResult(t, fmt.Sprintf("mutability %v, pass %d", q.Mutability, pass+1), want, got)
			moved := 0
			for i, v := range got.X {
				if v != ds.X[i] {
					moved++
				}
			}
			if moved == 0 {
				t.Fatalf("mutability %v, pass %d: no counterfactual moved", q.Mutability, pass+1)
			}
		}
		perRow.Close()
		shared.Close()
	}
}

// emptyDataset returns a data set without rows, of d features named f0, f1, … and the classes given.
func emptyDataset(d int, classes ...string) *data.Dataset {
	ds := &data.Dataset{Name: "random", ClassNames: classes}
	for j := range d {
		ds.FeatureNames = append(ds.FeatureNames, fmt.Sprint("f", j))
	}
	return ds
}

package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/ml/model"
)

// Graphs keeps one value per key, builds it once, releases the least recently used one beyond Max only
// when nobody holds it, and releases everything on Close; a nil Graphs builds and releases every time.
func TestGraphsKeepsReleasesAndEvicts(t *testing.T) {
	builds, released := map[string]int{}, map[string]int{}
	get := func(g *Graphs, key string) (string, func()) {
		t.Helper()
		v, done, err := Kept(g, key, func() (string, error) { builds[key]++; return "value of " + key, nil },
			func(v string) { released[v[len("value of "):]]++ })
		if err != nil {
			t.Fatal(err)
		}
		if v != "value of "+key {
			t.Fatalf("got %q for key %q", v, key)
		}
		return v, done
	}

	// nil: every call builds, done releases.
	_, done := get(nil, "a")
	_, done2 := get(nil, "a")
	done()
	done2()
	if builds["a"] != 2 || released["a"] != 2 {
		t.Fatalf("nil Graphs: %d builds and %d releases of a, want 2 and 2", builds["a"], released["a"])
	}
	clear(builds)
	clear(released)

	g := &Graphs{Max: 2}
	_, doneA := get(g, "a") // held
	_, d := get(g, "b")
	d()
	_, d = get(g, "a")
	d()
	if builds["a"] != 1 || builds["b"] != 1 || g.Len() != 2 {
		t.Fatalf("builds %v, %d kept: want one build each, two kept", builds, g.Len())
	}
	// c evicts the least recently used, b (a was used after it), which nobody holds: released at once.
	_, d = get(g, "c")
	d()
	if released["b"] != 1 || released["a"] != 0 || g.Len() != 2 {
		t.Fatalf("after c: released %v, %d kept; want b released, a kept", released, g.Len())
	}
	// d evicts a, which is still held: released only when its holder is done, and once.
	_, d = get(g, "d")
	d()
	if released["a"] != 0 {
		t.Fatal("a was released while held")
	}
	doneA()
	doneA()
	if released["a"] != 1 {
		t.Fatalf("a released %d times after its holder was done, want 1", released["a"])
	}
	// b is built again when asked for again.
	_, d = get(g, "b")
	d()
	if builds["b"] != 2 {
		t.Fatalf("b built %d times, want 2 (it had been evicted)", builds["b"])
	}
	g.Close()
	if g.Len() != 0 || released["c"] != 1 || released["d"] != 1 || released["b"] != 2 {
		t.Fatalf("after Close: %d kept, released %v", g.Len(), released)
	}

	// A key that is not comparable is an error, not a panic; so is a key holding another type.
	if _, _, err := Kept(g, []int{1}, func() (int, error) { return 1, nil }, func(int) {}); err == nil {
		t.Error("a slice key gave no error")
	}
	_, d = get(g, "e")
	d()
	if _, _, err := Kept(g, "e", func() (int, error) { return 1, nil }, func(int) {}); err == nil {
		t.Error("key e holds a string; asking for an int gave no error")
	}
}

func TestComparable(t *testing.T) {
	b := testBackend(t)
	m, err := New(b, Spec{Kind: KindMLP, NumFeatures: 3, NumClasses: 2, Hidden: 4, Layers: 1, Activation: "relu", Members: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	fn := FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node { return x }, 2, 2)
	for _, c := range []struct {
		key  any
		want bool
	}{
		{"a", true}, {OutputKey{Clf: m, What: "p"}, true}, {OutputKey{What: "p"}, true},
		{OutputKey{Clf: fn, What: "p"}, false}, {fn, false}, {[]int{1}, false}, {nil, false},
		{struct{ a any }{a: []int{1}}, false}, {[2]any{1, "x"}, true}, {[2]any{1, []int{}}, false},
	} {
		if got := Comparable(c.key); got != c.want {
			t.Errorf("Comparable(%T %v) = %v, want %v", c.key, c.key, got, c.want)
		}
	}
}

// Probabilities, logits and predictions through a kept graph are those of a fresh graph, bit for bit, in
// every call (the graph compiled once, for each batch size), and a FromFunc classifier is simply not kept.
func TestKeptOutputsMatchFresh(t *testing.T) {
	b := testBackend(t)
	m, err := New(b, Spec{Kind: KindMLP, NumFeatures: 5, NumClasses: 3, Hidden: 8, Layers: 2, Activation: "relu", Members: 1}, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	g := &Graphs{}
	defer g.Close()
	for _, n := range []int{1, 37, 37, 100} {
		x := make([]float32, n*5)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		want, err := Probabilities(b, m, x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := KeptProbabilities(g, b, m, x)
		if err != nil {
			t.Fatal(err)
		}
		wantL, _ := Logits(b, m, x)
		gotL, err := KeptLogits(g, b, m, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
				t.Fatalf("n = %d: probability %d is %v kept, %v fresh", n, i, got[i], want[i])
			}
		}
		for i := range wantL {
			if math.Float32bits(wantL[i]) != math.Float32bits(gotL[i]) {
				t.Fatalf("n = %d: logit %d is %v kept, %v fresh", n, i, gotL[i], wantL[i])
			}
		}
		wantP, _ := Predict(b, m, x)
		gotP, err := KeptPredict(g, b, m, x)
		if err != nil || fmt.Sprint(wantP) != fmt.Sprint(gotP) {
			t.Fatalf("n = %d: predictions %v kept, %v fresh (%v)", n, gotP, wantP, err)
		}
	}
	if g.Len() != 2 {
		t.Errorf("%d graphs kept, want 2 (probabilities and logits)", g.Len())
	}
	fn := FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node { return x }, 2, 2)
	if _, err := KeptProbabilities(g, b, fn, []float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if g.Len() != 2 {
		t.Errorf("a FromFunc classifier's graph was kept (%d graphs)", g.Len())
	}
	if _, err := KeptProbabilities(g, b, m, []float32{1, 2, 3}); err == nil {
		t.Error("3 values for rows of 5 features gave no error")
	}
}

// A row of logits with a NaN or an infinity has no probabilities: every class NaN, never (1, 0), which
// the SIMD kernels' softmax gives for (0, NaN). Finite rows are the softmax by hand.
func TestProbabilitiesKeepNaN(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	clf := FromFunc(model.NewStore(), func(_ *model.Scope, x *Node) *Node { return x }, 2, 2)
	x := []float32{0, nan, 0, float32(math.Log(3)), inf, 0, nan, nan}
	prob, err := Probabilities(testBackend(t), clf, x)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{nan, nan, 0.25, 0.75, nan, nan, nan, nan}
	for i, w := range want {
		got := prob[i]
		if math.IsNaN(float64(w)) != math.IsNaN(float64(got)) || !math.IsNaN(float64(w)) && math.Abs(float64(got-w)) > 1e-6 {
			t.Errorf("row %d, class %d: %v, want %v", i/2, i%2, got, w)
		}
	}
}

package experiment

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
)

// batchRecorder is a linear classifier of 2 × 2 images into 3 classes that records the largest batch it
// is built for.
type batchRecorder struct{ maxBatch int }

func (r *batchRecorder) Logits(x *Node) *Node {
	r.maxBatch = max(r.maxBatch, x.Shape().Dimensions[0])
	w := Const(x.Graph(), [][]float32{{2, -1, 0}, {-1, 2, 0}, {0, -1, 2}, {-1, 0, 1}})
	return MatMul(x, w)
}
func (r *batchRecorder) NumFeatures() int { return 4 }
func (r *batchRecorder) NumClasses() int  { return 3 }

// openImage opens 12 2 × 2 images in [0, 1] (pixel p3 is 0 in every row) with the recorder.
func openImage(t *testing.T, schema string) (*Custom, *batchRecorder) {
	t.Helper()
	csv := "q0,q1,q2,q3,k\n"
	for i := range 12 {
		v := func(j int) string { return []string{"0", "0.25", "0.5", "0.75", "1"}[(i*(j+2)+j)%5] }
		csv += v(0) + "," + v(1) + "," + v(2) + ",0," + []string{"a", "b", "c"}[i%3] + "\n"
	}
	p := filepath.Join(t.TempDir(), "img.csv")
	if err := os.WriteFile(p, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := data.ParseSchema([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	tb, err := data.ReadTable(p, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	r := &batchRecorder{}
	c, err := OpenCustom(tb, r, CustomOptions{Backend: b, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	return c, r
}

const imageSchema = `{"target": "k", "classes": ["a", "b", "c"], "image": {"height": 2, "width": 2, "prefix": "q", "min": 0, "max": 1}}`

// An image schema gets the paper's MNIST settings: the generator parameters of table_gen_params.tex
// (η 0.05, λ_cost 0.01, λ_setsize 0.1, λ_energy 0.3, no ridge) and the paper's pixel space [−1, 1], one map
// for every pixel: 0 → −1, 1 → 1 and 0.5 → 0, whatever each column's own spread in the data.
func TestCustomImageSettings(t *testing.T) {
	c, _ := openImage(t, imageSchema)
	if want := (counterfactual.Params{StepSize: 0.05, Cost: 0.01, SetSize: 0.1, Energy: 0.3}); c.params != want {
		t.Errorf("params = %+v, want MNIST's %+v", c.params, want)
	}
	x := []float32{0, 1, 0.5, 0}
	c.std.TransformRows(x)
	if want := []float32{-1, 1, 0, -1}; !slicesEqual(x, want) {
		t.Errorf("the pixels 0, 1, 0.5, 0 map to %v, want %v", x, want)
	}
	if lo, hi := c.Bounds(); lo[3] != 0 || hi[3] != 1 {
		t.Errorf("the always-dark pixel's bounds are [%v, %v], want [0, 1]", lo[3], hi[3])
	}
	// A tabular schema of the same columns keeps German Credit's (λ_cost 0.1) and standardises.
	tab, _ := openImage(t, `{"target": "k", "classes": ["a", "b", "c"], "features": [{"name": "q0", "type": "numeric"}, {"name": "q1", "type": "numeric"}, {"name": "q2", "type": "numeric"}, {"name": "q3", "type": "numeric"}]}`)
	if tab.params.Cost != 0.1 {
		t.Errorf("tabular λ_cost = %v, want German Credit's 0.1", tab.params.Cost)
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Scoring rows towards one class samples that class alone, 10 chains (the model never sees a batch of
// all 3 classes' 30 chains), once: a second score draws nothing more; a row towards another class then
// draws that class only.
func TestCustomSamplesTargetClassesOnly(t *testing.T) {
	c, r := openImage(t, imageSchema)
	ctx := context.Background()
	pred, err := c.Predicted(rowsUpTo(12))
	if err != nil {
		t.Fatal(err)
	}
	var rows []int
	for i, p := range pred {
		if p != 2 && len(rows) < 2 {
			rows = append(rows, i)
		}
	}
	x, _ := c.rows(rows)
	r.maxBatch = 0
	sc, err := c.Score(ctx, rows, x, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.maxBatch != 10 {
		t.Errorf("largest batch while scoring %d rows towards one class: %d, want its 10 chains", len(rows), r.maxBatch)
	}
	for _, s := range sc.Scores {
		if !(s.Unfaithfulness >= 0) {
			t.Errorf("unfaithfulness %v, want a distance", s.Unfaithfulness)
		}
	}
	if len(c.samples) != 1 || len(c.samples[2]) != 10*4 {
		t.Errorf("classes sampled: %d (class c: %d values), want class c alone, 10 samples of 4 pixels", len(c.samples), len(c.samples[2]))
	}
	before := c.samples[2]
	if _, err := c.Score(ctx, rows, x, 2); err != nil {
		t.Fatal(err)
	}
	if &c.samples[2][0] != &before[0] {
		t.Errorf("a second score drew class c again")
	}
}

func rowsUpTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Rows towards two classes sample both in one batched run (the model is built for their 20 chains at
// once), and each class's samples are those that scoring towards that class alone draws, bit for bit: a
// class's samples do not depend on the other classes asked with it.
func TestCustomSamplesClassesInOneBatch(t *testing.T) {
	c, r := openImage(t, imageSchema)
	ctx := context.Background()
	pred, err := c.Predicted(rowsUpTo(12))
	if err != nil {
		t.Fatal(err)
	}
	var rows, targets []int
	for _, k := range []int{1, 2} {
		for i, p := range pred {
			if p != k {
				rows, targets = append(rows, i), append(targets, k)
				break
			}
		}
	}
	x, _ := c.rows(rows)
	r.maxBatch = 0
	if _, err := c.ScoreTargets(ctx, rows, x, targets); err != nil {
		t.Fatal(err)
	}
	if r.maxBatch != 20 || len(c.samples) != 2 {
		t.Errorf("scoring towards classes b and c: largest batch %d, %d classes sampled; want both classes' 10 chains in one batch of 20", r.maxBatch, len(c.samples))
	}
	alone, _ := openImage(t, imageSchema)
	for i, k := range targets {
		if _, err := alone.ScoreTargets(ctx, rows[i:i+1], x[i*4:(i+1)*4], targets[i:i+1]); err != nil {
			t.Fatal(err)
		}
		if !slicesEqual(c.samples[k], alone.samples[k]) {
			t.Errorf("class %d: drawn with another class %v, alone %v", k, c.samples[k], alone.samples[k])
		}
	}
}

package energy

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/gomlx/core/tensors"
)

// Training several minibatches per graph call (jemChunk) gives the weights, Adam's state, losses, step
// and skip counts of one call per minibatch (the sampler, the loss and the step as separate calls, whose
// replay buffer and random draws live on the host): bit for bit on the pure-Go backend, within 1e-4
// relative on XLA. The epochs have 12 whole minibatches and a partial one, so chunks of 4 leave the
// partial one to the one-call path. Each minibatch adds 6 samples to replay buffers of 20: from a chunk's
// second minibatch on, chains may start from samples written earlier in the same chunk, and from the
// fourth minibatch of training on, the ring overwrites slots, within a chunk too. The learning rate of the
// overflowing case makes the loss overflow after a few steps: the chunks
// must skip exactly the steps that one call per minibatch skips; the last clamps the chains to a box at
// every step.
func TestJEMChunksMatchOneStepPerCall(t *testing.T) {
	b := testBackend(t)
	xla := strings.HasPrefix(strings.ToLower(b.Name()), "xla")
	same := func(got, want float64) bool {
		if math.IsNaN(want) {
			return math.IsNaN(got)
		}
		if xla {
			return math.Abs(got-want) <= 1e-4*max(1, math.Abs(want))
		}
		return got == want
	}
	const batch, perCall = 16, 4
	for _, c := range []struct {
		name     string
		members  int
		rows     int // in the data set; 205 per member and epoch after bagging
		bagging  float64
		lr       float64
		authors  bool
		skipping bool
		bounded  bool // the chains clamped to a box at every step
	}{
		{name: "JEM", members: 1, rows: 13*batch - 3, lr: 0.01},
		{name: "ensemble, authors' code, bagged", members: 2, rows: 257, bagging: 0.8, lr: 0.01, authors: true},
		{name: "overflowing", members: 1, rows: 13*batch - 3, lr: 1e12, skipping: true},
		{name: "bounded chains", members: 1, rows: 13*batch - 3, lr: 0.01, bounded: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ds := blobs((c.rows+2)/3, 5)
			ds.X, ds.Y = ds.X[:c.rows*2], ds.Y[:c.rows]
			prior, err := PriorFromData(ds)
			if err != nil {
				t.Fatal(err)
			}
			kind := models.KindJEM
			if c.members > 1 {
				kind = models.KindJEMEnsemble
			}
			spec := models.Spec{Kind: kind, NumFeatures: 2, NumClasses: 3, Hidden: 8, Layers: 2, Activation: "relu", Members: c.members}
			s := AuthorsSGLD()
			s.Steps = 5
			if c.bounded {
				s.Lower, s.Upper = []float32{-0.5, -0.5}, []float32{0.5, 0.5}
			}
			opts := JEMOptions{Epochs: 2, BatchSize: batch, LearningRate: c.lr, SGLD: s, Samples: 6, Lambda: 0.1,
				Prior: prior, Seed: 11, BaggingFraction: c.bagging, BufferCapacity: 20}
			if c.authors {
				opts = opts.WithAuthorsCode()
			}
			fit := func(perCall int) (map[string][]float32, *models.History) {
				m, err := models.New(b, spec, 3)
				if err != nil {
					t.Fatal(err)
				}
				h, err := trainJEM(context.Background(), b, m, ds, opts, perCall)
				if err != nil {
					t.Fatal(err)
				}
				vars := map[string][]float32{}
				for v := range m.Store().IterVariables() {
					if v.DType().IsFloat() {
						vars[v.Path()] = tensors.MustCopyFlatData[float32](v.MustValue())
					}
				}
				return vars, h
			}
			want, hw := fit(1)
			got, hg := fit(perCall)
			if hg.Steps != hw.Steps || hg.Skipped != hw.Skipped {
				t.Errorf("chunks: %d steps, %d skipped; one per call: %d, %d", hg.Steps, hg.Skipped, hw.Steps, hw.Skipped)
			}
			if hw.Steps+hw.Skipped != 2*13 {
				t.Errorf("%d steps and %d skipped, want %d minibatches", hw.Steps, hw.Skipped, 2*13)
			}
			if c.skipping != (hw.Skipped > 0) || hw.Steps == 0 {
				t.Fatalf("one per call took %d steps and skipped %d: the case does not test what it should", hw.Steps, hw.Skipped)
			}
			for i := range hw.Loss {
				if !same(hg.Loss[i], hw.Loss[i]) {
					t.Errorf("epoch %d loss %v in chunks, %v one per call", i+1, hg.Loss[i], hw.Loss[i])
				}
			}
			if len(want) < 3*2*c.members {
				t.Fatalf("%d variables, want the weights and Adam's moments", len(want))
			}
			for path, w := range want {
				g, ok := got[path]
				if !ok || len(g) != len(w) {
					t.Fatalf("%s: %d values in chunks, %d one per call", path, len(g), len(w))
				}
				for i := range w {
					if !same(float64(g[i]), float64(w[i])) {
						t.Fatalf("%s[%d] is %v in chunks, %v one per call", path, i, g[i], w[i])
					}
				}
			}
		})
	}
}

// The chunk's host side makes ReplayBuffer.Init's draws ahead of the samples: a buffer's draw of chains
// and writeSlots agree with Init and Add on a small ring that wraps.
func TestReplayBufferDrawsAhead(t *testing.T) {
	prior, err := NewPrior([]float32{0}, []float32{1})
	if err != nil {
		t.Fatal(err)
	}
	buf := NewReplayBuffer(prior)
	buf.Capacity = 5
	for i := range 3 {
		if err := buf.Add([]float32{float32(10 * i), float32(10*i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	// Rows 0, 1, 10, 11, 20 fill slots 0–4; 21 overwrites slot 0, the oldest.
	wantRows := []float32{21, 1, 10, 11, 20}
	for i, v := range wantRows {
		if buf.rows[i] != v {
			t.Fatalf("ring %v, want %v", buf.rows, wantRows)
		}
	}
	slots, stored, next := buf.writeSlots(buf.Len(), buf.next, 3)
	if want := []int{1, 2, 3}; stored != 5 || next != 4 || !slices.Equal(slots, want) {
		t.Fatalf("writeSlots: %v, %d stored, next %d; want %v, 5, 4", slots, stored, next, want)
	}
	a, b := data.NewRand(4), data.NewRand(4)
	x := buf.Init(200, a)
	slots, fresh := buf.draw(200, buf.Len(), b)
	var fromBuffer int
	for i, r := range slots {
		want := fresh[i]
		if r >= 0 {
			want = buf.rows[r]
			fromBuffer++
		}
		if x[i] != want {
			t.Fatalf("chain %d: Init %v, draw %v (slot %d)", i, x[i], want, r)
		}
	}
	if fromBuffer < 150 || fromBuffer == 200 || a.Uint64() != b.Uint64() {
		t.Fatalf("%d of 200 chains from the buffer, or the draws consumed different amounts", fromBuffer)
	}
}

package energy

import (
	"context"
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/models"
)

// Class samples drawn with a kept sampler (ClassOptions.Graphs) are those of a fresh one, bit for bit,
// draw after draw (other seeds, per class and per target, ranked by energy or by −log softmax), and the
// sampler is compiled once per model and settings.
func TestKeptSamplerDrawsTheSame(t *testing.T) {
	b := testBackend(t)
	m, err := models.New(b, models.Spec{Kind: models.KindMLP, NumFeatures: 3, NumClasses: 2, Hidden: 8, Layers: 1, Activation: "relu", Members: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	prior, err := NewPrior([]float32{-2, -1, 0}, []float32{2, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	graphs := &models.Graphs{}
	defer graphs.Close()
	same := func(what string, want, got []float32) {
		t.Helper()
		if len(want) != len(got) {
			t.Fatalf("%s: %d values kept, %d fresh", what, len(got), len(want))
		}
		for i := range want {
			if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
				t.Fatalf("%s: value %d is %v kept, %v fresh", what, i, got[i], want[i])
			}
		}
	}
	ctx := context.Background()
	for round, opts := range []ClassOptions{AuthorsClassOptions(prior), AuthorsL1ClassOptions(prior)} {
		if round == 0 {
			opts.SGLD.Steps = 20
		}
		kept := opts
		kept.Graphs = graphs
		for seed := uint64(1); seed <= 2; seed++ {
			want, err := SampleTargets(ctx, b, m, opts, seed)
			if err != nil {
				t.Fatal(err)
			}
			got, err := SampleTargets(ctx, b, m, kept, seed)
			if err != nil {
				t.Fatal(err)
			}
			for k := range want.Samples {
				same("per class", want.Samples[k], got.Samples[k])
			}
			wantEach, err := SampleEach(ctx, b, m, []int{1, 0, 1}, opts, seed)
			if err != nil {
				t.Fatal(err)
			}
			gotEach, err := SampleEach(ctx, b, m, []int{1, 0, 1}, kept, seed)
			if err != nil {
				t.Fatal(err)
			}
			for i := range wantEach {
				same("per target", wantEach[i], gotEach[i])
			}
		}
		// Per setting, two samplers (the authors' sampler divides the gradient by the batch, so the K
		// classes of SampleTargets and the three targets of SampleEach scale it differently), and one
		// logits graph for all, which ranks the samples by −log softmax.
		if n, want := graphs.Len(), 3+2*round; n != want {
			t.Errorf("after setting %d: %d values kept, want %d", round+1, n, want)
		}
	}
}

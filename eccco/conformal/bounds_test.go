package conformal

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
)

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// With q̂ = 0.9926 (our Fashion-MNIST MLP), T = 0.1, κ = 1 and ten classes, a classifier that is certain of
// the target still counts every other class as half in: Ω = 9·σ(−0.074) + σ(9.926) − 1 ≈ 4.334, and no
// valid counterfactual does better. Computed by hand, not by the search.
//
// With -short the same fact is checked on four classes (3·σ(−0.074) + σ(9.926) − 1 ≈ 1.44448):
// ValidOmegaRange's search grows with the square of the classes, and ten take seconds on a loaded machine.
func TestValidOmegaRangeHandComputed(t *testing.T) {
	k, hand := 10, 4.33355
	if testing.Short() {
		k, hand = 4, 1.44448
	}
	r, err := ValidOmegaRange(0.9926, 0.1, 1, k, true, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := float64(k-1)*sigmoid((0.9926-1)/0.1) + sigmoid(0.9926/0.1) - 1
	if math.Abs(want-hand) > 1e-4 {
		t.Fatalf("hand value %v", want)
	}
	if math.Abs(r.Min-want) > 1e-9 {
		t.Errorf("Min = %.6f, want %.6f (the certain counterfactual)", r.Min, want)
	}
	if r.MinAt[0] != 1 {
		t.Errorf("Min attained at %v, want the target at probability 1", r.MinAt)
	}
	// Two classes: p_other = 1 − p_t, so Ω(p_t) = σ((q̂ − 1 + p_t)/T) + σ((q̂ − p_t)/T) − κ, floored at 0.
	r2, err := ValidOmegaRange(0.3, 0.1, 1, 2, false, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i <= 100000; i++ {
		pt := 0.5 + 0.5*float64(i)/100000
		w := max(0, sigmoid((0.3-1+pt)/0.1)+sigmoid((0.3-pt)/0.1)-1)
		lo, hi = min(lo, w), max(hi, w)
	}
	if math.Abs(r2.Min-lo) > 1e-6 || math.Abs(r2.Max-hi) > 1e-6 {
		t.Errorf("two classes: range [%.6f, %.6f], want [%.6f, %.6f] from a dense scan", r2.Min, r2.Max, lo, hi)
	}
}

// No valid probability vector, drawn at random in many shapes, leaves the range, and the range's ends
// are attained by the vectors it names. With -short: the same q̂ and rules on four classes in place of ten,
// and 20 000 draws in place of 200 000.
func TestValidOmegaRangeContainsRandomVectors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type shape struct {
		qHat  float64
		k     int
		empty bool
	}
	shapes, draws := []shape{{0.9926, 10, true}, {0.6288, 10, true}, {0.0257, 10, true}, {0.0257, 10, false}, {0.45, 3, true}, {0.9, 2, true}}, 200000
	if testing.Short() {
		shapes, draws = []shape{{0.9926, 4, true}, {0.6288, 4, true}, {0.0257, 4, true}, {0.0257, 4, false}, {0.45, 3, true}, {0.9, 2, true}}, 20000
	}
	for _, tc := range shapes {
		r, err := ValidOmegaRange(tc.qHat, 0.1, 1, tc.k, tc.empty, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range [][]float64{r.MinAt, r.MaxAt} {
			sum := 0.0
			for _, v := range at {
				sum += v
			}
			if math.Abs(sum-1) > 1e-9 || at[0] < 0.5 {
				t.Errorf("%+v: extreme at %v is not a valid probability vector", tc, at)
			}
		}
		if w := OmegaOf(r.MinAt, tc.qHat, 0.1, 1, tc.empty); w != r.Min {
			t.Errorf("%+v: Ω at MinAt = %v, Min = %v", tc, w, r.Min)
		}
		p := make([]float64, tc.k)
		lo, hi := math.Inf(1), math.Inf(-1)
		for range draws {
			pt := 0.5 + 0.5*rng.Float64()
			if rng.IntN(4) == 0 {
				pt = 0.5 + 0.5*math.Pow(rng.Float64(), 8) // near 0.5
			}
			// The rest split over a random subset, with random (sometimes very uneven) weights.
			sum := 0.0
			for i := 1; i < tc.k; i++ {
				p[i] = 0
				if rng.IntN(3) > 0 {
					p[i] = math.Pow(rng.Float64(), float64(1+rng.IntN(6)))
				}
				sum += p[i]
			}
			p[0] = pt
			for i := 1; i < tc.k; i++ {
				if sum == 0 {
					p[i] = (1 - pt) / float64(tc.k-1)
				} else {
					p[i] *= (1 - pt) / sum
				}
			}
			w := OmegaOf(p, tc.qHat, 0.1, 1, tc.empty)
			lo, hi = min(lo, w), max(hi, w)
		}
		t.Logf("%+v: random [%.6f, %.6f], range [%.6f, %.6f]", tc, lo, hi, r.Min, r.Max)
		if lo < r.Min-1e-6 || hi > r.Max+1e-6 {
			t.Errorf("%+v: random vectors reach [%.6f, %.6f], outside the range [%.6f, %.6f]", tc, lo, hi, r.Min, r.Max)
		}
	}
	if _, err := ValidOmegaRange(0.9, 0, 1, 10, false, 0.5); err == nil {
		t.Error("T = 0 accepted")
	}
	if _, err := ValidOmegaRange(0.9, 0.1, 1, 1, false, 0.5); err == nil {
		t.Error("one class accepted")
	}
}

// OmegaOf, in Go, is what the graph functions SmoothSetSize and SmoothSetSizeEmptyRule compute from logits.
func TestOmegaOfMatchesGraph(t *testing.T) {
	logits := [][]float64{{4, 0, -1, 0.5}, {0.1, 0.2, 0.3, 0.4}, {-3, 5, 1, 1}, {9, 9, -9, 0}}
	for _, q := range []float64{0.05, 0.4, 0.97} {
		for _, empty := range []bool{false, true} {
			got := evalLogits(t, logits, func(l *Node) *Node {
				if empty {
					return SmoothSetSizeEmptyRule(l, q, 0.1, 1)
				}
				return SmoothSetSize(l, q, 0.1, 1)
			})
			for i, row := range logits {
				p, z := make([]float64, len(row)), 0.0
				for j, v := range row {
					p[j] = math.Exp(v)
					z += p[j]
				}
				for j := range p {
					p[j] /= z
				}
				if w := OmegaOf(p, q, 0.1, 1, empty); math.Abs(w-got[i]) > 1e-9 {
					t.Errorf("q̂ %v, empty rule %v, row %d: OmegaOf %v, graph %v", q, empty, i, w, got[i])
				}
			}
		}
	}
}

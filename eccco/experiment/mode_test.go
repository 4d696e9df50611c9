package experiment

import (
	"errors"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/energy"
)

// In the authors'-code mode ECCCo-L1 and its no-CP ablation are scored against the samples their penalty
// used; every other generator, and every generator in the paper mode, against an independent draw.
func TestUnfaithfulnessAgainstOwnSamples(t *testing.T) {
	own := &energy.TargetSamples{Samples: [][]float32{{0, 0}, {1, 1}}, D: 2}
	cal := &conformal.Calibrated{QHat: 0.1, Opts: conformal.DefaultOptions()}
	in := counterfactual.Ingredients{Calibrated: cal, Samples: own}
	p, err := counterfactual.PaperParams("moons")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range counterfactual.GeneratorNames() {
		if name == "ECCCo+" || name == "REVISE" {
			continue
		}
		gen, err := counterfactual.ByName(name, p, in)
		if err != nil {
			t.Fatal(err)
		}
		wantOwn := name == "ECCCo-L1" || name == "ECCCo-L1 (no CP)"
		if got := AuthorsCode.UnfaithfulnessAgainstOwnSamples(gen); got != wantOwn {
			t.Errorf("%s in the authors'-code mode: against its own samples = %v, want %v", name, got, wantOwn)
		}
		if Paper.UnfaithfulnessAgainstOwnSamples(gen) {
			t.Errorf("%s in the paper mode: scored against its own samples", name)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Paper, "paper": Paper, " Paper ": Paper, "authors-code": AuthorsCode, "compat": AuthorsCode, "paper-code": AuthorsCode} {
		got, err := ParseMode(in)
		if err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("julia"); !errors.Is(err, ErrInvalid) {
		t.Errorf("ParseMode(julia): err = %v, want ErrInvalid", err)
	}
	if err := Mode("compat").Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("Mode(compat).Validate() = %v: an alias is not a stored mode", err)
	}
}

package experiment

import (
	"errors"
	"strings"
	"testing"
)

// ParseSet reads repeated and comma-listed key=value pairs of the groups asked for; an unknown key, a
// repeated one or a bad value is ErrInvalid naming the key (and, when unknown, the keys accepted).
func TestParseSet(t *testing.T) {
	o, err := ParseSet([]string{"epochs=5,lr=0.01", "sampling=per-counterfactual", "energy=1", "energy-decay-rate=0", "chains=8", "clip=0"},
		SetTraining, SetSampling, SetGenerator, SetSettings, SetSampler)
	if err != nil {
		t.Fatal(err)
	}
	if o.Training.Epochs != 5 || o.Training.LearningRate != 0.01 || o.Sampling != PerCounterfactual || o.Generator.Energy == nil || *o.Generator.Energy != 1 ||
		o.Generator.Step != nil || o.Settings["energy-decay-rate"] != "0" || o.Sampler.Chains != 8 ||
		o.Sampler.ClipGrad == nil || *o.Sampler.ClipGrad != 0 {
		t.Errorf("overrides %+v", o)
	}
	for _, c := range []struct {
		args   []string
		groups []SetGroup
		want   string
	}{
		{[]string{"epochs=1", "epochs=2"}, []SetGroup{SetTraining}, `"epochs" is given twice`},
		{[]string{"max-iter=5"}, []SetGroup{SetTraining}, `unknown key "max-iter" (keys: epochs, lenet-epochs`},
		{[]string{"epochs"}, []SetGroup{SetTraining}, "not key=value"},
		{[]string{"epochs=-1"}, []SetGroup{SetTraining}, "epochs=-1"},
		{[]string{"bagging=x"}, []SetGroup{SetSettings}, "bagging"},
		{[]string{"target-mix=2:1/3"}, []SetGroup{SetSettings}, "target-mix"},
		{[]string{"sampling=per-row"}, []SetGroup{SetSampling}, "sampling"},
		{[]string{"energy=-1"}, []SetGroup{SetGenerator}, "energy"},
		{[]string{"step=-1"}, []SetGroup{SetGenerator}, "step=-1: generator --set: step = -1 must be a non-negative number"},
		// a step limit no search finishes (10¹² steps: hours a row, where the stop rule does not hold)
		{[]string{"max-iter=1000000000000"}, []SetGroup{SetSearch}, "max-iter=1000000000000: at most 1000000"},
	} {
		if _, err := ParseSet(c.args, c.groups...); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) ||
			strings.Count(err.Error(), ErrInvalid.Error()) != 1 {
			t.Errorf("ParseSet(%v): %v, want ErrInvalid (said once) mentioning %q", c.args, err, c.want)
		}
	}
}

// The authors'-code settings differ from the paper's in every switch that applies to the data set;
// Set overrides one, Describe writes them all, and Open applies Options.Set.
func TestSettings(t *testing.T) {
	paper, err := Paper.Settings("moons")
	if err != nil {
		t.Fatal(err)
	}
	if paper != (Settings{Mode: Paper}) {
		t.Errorf("paper settings %+v, want every switch off", paper)
	}
	authors, err := AuthorsCode.Settings("mnist")
	if err != nil {
		t.Fatal(err)
	}
	if !authors.VisionArchitecture || !authors.UncroppedSSIM || authors.SchutStep != 0.1 || authors.AuthorsModels || !authors.TargetMix.IsZero() {
		t.Errorf("authors' MNIST settings %+v", authors)
	}
	if err := authors.Set("target-mix", "1:39/100"); err != nil || authors.TargetMix != (TargetMix{Class: 1, Count: 39, Of: 100}) {
		t.Errorf("target-mix: %+v, %v", authors.TargetMix, err)
	}
	if err := paper.Set("energy-decay-rate", "0.01"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "energy-decay-every") {
		t.Errorf("a decay rate without its period: %v", err)
	}
	if d := authors.Describe("bagging", "target-mix", "schut-step"); d != "bagging=0.8 target-mix=1:39/100 schut-step=0.1" {
		t.Errorf("Describe: %q", d)
	}
	if _, err := Open("moons", Options{Mode: AuthorsCode, Set: map[string]string{"nosuch": "1"}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Open with an unknown setting: %v", err)
	}
	e, err := Open("moons", Options{Mode: AuthorsCode, Set: map[string]string{"energy-decay-rate": "0", "authors-models": "false"}})
	if err != nil {
		t.Fatal(err)
	}
	if s := e.Settings(); s.EnergyDecayRate != 0 || s.AuthorsModels || !s.InductiveSplit {
		t.Errorf("opened settings %+v", s)
	}
}

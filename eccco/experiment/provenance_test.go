package experiment

import (
	"regexp"
	"slices"
	"testing"
)

// Every key of Settings.Set has its provenance, in field order; the fitted ones are those the published
// numbers chose (the target mix, the energy decay, the image generators' Λ), and switching them off by
// FittedOff leaves the rest of the authors'-code mode as it is.
func TestSwitchesCoverEverySetting(t *testing.T) {
	var keys []string
	for _, s := range Switches() {
		keys = append(keys, s.Key)
		if s.Source == "" || (s.Provenance != Replayed && s.Provenance != Inferred && s.Provenance != Fitted) {
			t.Errorf("%s: provenance %q, source %q", s.Key, s.Provenance, s.Source)
		}
	}
	if !slices.Equal(keys, SettingKeys()) {
		t.Errorf("switches %v, settings %v", keys, SettingKeys())
	}
	off := FittedOff()
	if len(off) != 5 || off["target-mix"] != "" || off["energy-decay-rate"] != "0" || off["vision-cost"] != "0" || off["vision-l1-energy"] != "0" {
		t.Errorf("FittedOff = %v", off)
	}
	s, err := AuthorsCode.Settings("german-credit")
	if err != nil {
		t.Fatal(err)
	}
	want := s
	for _, k := range []string{"target-mix", "energy-decay-rate", "energy-decay-every"} {
		if err := s.Set(k, off[k]); err != nil {
			t.Fatalf("%s=%q: %v", k, off[k], err)
		}
	}
	if !s.TargetMix.IsZero() || s.EnergyDecayRate != 0 || s.EnergyDecayEvery != 0 {
		t.Errorf("fitted switches still on: %+v", s)
	}
	want.TargetMix, want.EnergyDecayRate, want.EnergyDecayEvery = TargetMix{}, 0, 0
	if s != want || !s.AuthorsIngredients || !s.AuthorsModels {
		t.Errorf("switching the fitted ones off changed others: %+v", s)
	}
}

// fileLine is a cited place: a file of the authors' code or of a package it used, with its line or lines
// ("src/penalties.jl:74-82", "benchmark.jl:219,272-277").
var fileLine = regexp.MustCompile(`\.(jl|qmd|toml)(:\d+(-\d+)?(,\d+(-\d+)?)*)`)

// fileToken is a file named in a source: a path (with a slash) or a lower-case file name, ending in
// .jl, .qmd or .toml, with what follows it. A bare capitalised name ("ECCCo.jl", "JointEnergyModels.jl")
// is a package, not a file.
var fileToken = regexp.MustCompile(`(?:[\w.-]*/[\w./-]*|\b[a-z_][\w-]*)\.(?:jl|qmd|toml)(:\d)?`)

// sourceLacksLine says what a Source is missing: "" when it cites at least one file:LINE and every file it
// names carries its line.
func sourceLacksLine(src string) string {
	if !fileLine.MatchString(src) {
		return "no file:LINE"
	}
	for _, m := range fileToken.FindAllStringSubmatch(src, -1) {
		if m[1] == "" {
			return m[0] + " without a line"
		}
	}
	return ""
}

// The checker itself, on sources written by hand: a file without its line, or a package's name alone,
// does not pass.
func TestSourceLacksLineCases(t *testing.T) {
	for _, c := range []struct {
		src string
		bad bool
	}{
		{"src/penalties.jl:74-82 (the decay)", false},
		{"CE.jl src/evaluation/benchmark.jl:219,272-277", false},
		{"ConformalPrediction.jl v0.1.12 src/conformal_models/inductive_classification.jl:21,45,91", false},
		{"experiments/Manifest.toml:3", false},
		{"as vision-cost (78925f6 setup_env.jl:189, mnist.jl:33)", false},
		{"src/penalties.jl", true},
		{"ECCCo.jl's evaluation of the metrics", true},
		{"src/penalties.jl:134; src/sampling.jl (get_lowest_energy_sample)", true},
		{"experiments/mnist.jl:45, fmnist.jl", true},
		{"CE.jl dev/artifacts/vision.qmd", true},
		{"MLJEnsembles EnsembleModel default bagging_fraction 0.8", true},
	} {
		if got := sourceLacksLine(c.src); (got != "") != c.bad {
			t.Errorf("sourceLacksLine(%q) = %q, want bad %v", c.src, got, c.bad)
		}
	}
}

// Every switch cites its source with file and line: at least one file:LINE, and no file named without
// its line (the Provenance table of the report lists them).
func TestProvenanceSourcesCiteFileAndLine(t *testing.T) {
	for _, s := range Switches() {
		if why := sourceLacksLine(s.Source); why != "" {
			t.Errorf("%s: %s in %q", s.Key, why, s.Source)
		}
	}
}

package experiment

import (
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

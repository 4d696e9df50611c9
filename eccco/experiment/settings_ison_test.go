package experiment

import "testing"

// TestIsOn checks IsOn against the authors'-code mode's documented values: on images the vision
// architecture is on and the fitted vision cost off by default (Settings.VisionCost); in the paper's
// equations every switch is off.
func TestIsOn(t *testing.T) {
	a, err := AuthorsCode.Settings("mnist")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{"vision-architecture": true, "vision-cost": false, "authors-models": false} {
		if got, err := a.IsOn(key); err != nil || got != want {
			t.Errorf("mnist %s: %v (%v), want %v", key, got, err, want)
		}
	}
	p, err := Paper.Settings("moons")
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range SettingKeys() {
		if on, err := p.IsOn(key); err != nil || on {
			t.Errorf("paper mode %s: on %v (%v)", key, on, err)
		}
	}
	if _, err := p.IsOn("no-such-switch"); err == nil {
		t.Error("an unknown key was accepted")
	}
}

package benchmark

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/experiment"
)

// A manifest written before Mode and Settings were recorded (only "compat") still reads: its mode from
// compat, its settings resolved from the mode; it merges with what a run of today claims, so old result
// directories resume. Today's manifests record the settings and no longer write compat; units computed
// with other settings are refused.
func TestManifestOldAndNew(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "experiment.json")
	raw := `{"protocol": 12, "dataset": "circles", "seed": 42, "factuals": 20, "compat": true,
  "generators": {"ECCCo": "ECCCo"}, "models": {"mlp": "b2f8b254820261e8"}, "model_source": "authors"}`
	if err := os.WriteFile(old, []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	have, err := ReadManifest(old)
	if err != nil {
		t.Fatal(err)
	}
	if have.Mode != "authors-code" || have.Settings == nil || !have.Settings.AuthorsModels || have.Settings.TargetMix.String() != "0:47/100" {
		t.Fatalf("old manifest read as mode %q, settings %+v", have.Mode, have.Settings)
	}
	settings, err := olderSettings("authors-code", "circles", "authors")
	if err != nil {
		t.Fatal(err)
	}
	want := Manifest{Protocol: 12, Dataset: "circles", Seed: 42, Factuals: 20, Mode: "authors-code", Settings: &settings,
		Generators: map[string]string{"ECCCo": "ECCCo"}, ModelSource: "authors"}
	if changed, err := have.merge(want, dir); err != nil || changed {
		t.Errorf("resuming an old manifest: changed %v, %v", changed, err)
	}
	path := filepath.Join(dir, "new.json")
	if err := writeManifest(path, want); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(written), `"compat"`) || !strings.Contains(string(written), `"target-mix": "0:47/100"`) {
		t.Errorf("written manifest:\n%s", written)
	}
	var back Manifest
	if err := json.Unmarshal(written, &back); err != nil || back.Settings == nil || *back.Settings != settings {
		t.Errorf("read back %+v (%v), want %+v", back.Settings, err, settings)
	}
	other := settings
	if err := other.Set("energy-decay-rate", "0"); err != nil {
		t.Fatal(err)
	}
	want.Settings = &other
	if _, err := have.merge(want, dir); !errors.Is(err, ErrManifest) {
		t.Errorf("units of other settings: %v, want ErrManifest", err)
	}
	paper, _ := experiment.Paper.Settings("circles")
	if paper.Mode != experiment.Paper || paper.AuthorsData || paper.EnergyDecayRate != 0 {
		t.Errorf("paper settings %+v", paper)
	}
}

// Runner.Set overrides the mode's settings: the manifest records the overridden value (here the authors'-code
// mode without its fitted target mix and energy decay, as a replay-only run uses it), and a run with the
// fitted values refuses to resume into the same directory.
func TestRunnerSetIsRecordedAndGuarded(t *testing.T) {
	r := newRunner(t, t.TempDir(), t.TempDir())
	p := Protocol{Dataset: "circles", Mode: experiment.AuthorsCode, Seed: 42, Factuals: 20}
	r.Set = map[string]string{"target-mix": "", "energy-decay-rate": "0"}
	claim := func(p Protocol) error {
		ex, err := r.Open(p)
		if err != nil {
			return err
		}
		defer ex.Close()
		return r.claim(p, ex.Settings(), nil)
	}
	if err := claim(p); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(r.ManifestPath("circles"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Settings == nil || !m.Settings.TargetMix.IsZero() || m.Settings.EnergyDecayRate != 0 || !m.Settings.AuthorsModels || !m.Settings.AuthorsIngredients {
		t.Fatalf("recorded settings %+v, want the authors' code without the target mix and the decay", m.Settings)
	}
	r.Set = nil
	if err := claim(p); !errors.Is(err, ErrManifest) {
		t.Errorf("resuming with the fitted switches back on: %v, want ErrManifest", err)
	}
	r.Set = map[string]string{"no-such-switch": "1"}
	if err := claim(Protocol{Dataset: "moons", Mode: experiment.AuthorsCode, Seed: 42, Factuals: 20}); !errors.Is(err, experiment.ErrInvalid) {
		t.Errorf("an unknown switch: %v, want ErrInvalid", err)
	}
}

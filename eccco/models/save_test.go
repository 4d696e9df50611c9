package models

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func smallMLP(t *testing.T) *Model {
	t.Helper()
	m, err := New(testBackend(t), Spec{Kind: KindMLP, NumFeatures: 2, NumClasses: 2, Hidden: 4, Layers: 1, Activation: "relu", Members: 1}, 7)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func saveOrReplace(m *Model, dir string, replace bool) error {
	if replace {
		return m.Replace(dir)
	}
	return m.Save(dir)
}

// listDir returns the sorted names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestProvenanceRoundTrip(t *testing.T) {
	b := testBackend(t)
	m := smallMLP(t)
	p := Provenance{Dataset: "moons", Seed: 42, Split: "moons: 600 train / 150 test, seed 42", Mode: "authors-code",
		Kind: KindJEM, Training: Training{Epochs: 500, BatchSize: 100, LearningRate: 1e-3, Objective: "jem (authors' code)", Seconds: 3.5}}
	m.SetProvenance(p)
	if m.Provenance() != p {
		t.Fatalf("Provenance() = %+v after SetProvenance(%+v)", m.Provenance(), p)
	}
	dir := filepath.Join(t.TempDir(), "m")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	// The provenance is a field "provenance" of spec.json, next to the spec's own fields.
	raw, err := os.ReadFile(filepath.Join(dir, SpecFile))
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatal(err)
	}
	if _, ok := fields["provenance"]; !ok {
		t.Errorf("spec.json has no field provenance: %s", raw)
	}
	if string(fields["hidden"]) != "4" {
		t.Errorf("spec.json: hidden = %s, want 4", fields["hidden"])
	}
	var saved struct {
		Provenance struct {
			Seed     uint64 `json:"seed"`
			Training struct {
				LearningRate float64 `json:"learning_rate"`
			} `json:"training"`
		} `json:"provenance"`
	}
	if err := json.Unmarshal(raw, &saved); err != nil || saved.Provenance.Seed != 42 || saved.Provenance.Training.LearningRate != 1e-3 {
		t.Errorf("spec.json provenance: %+v (%v), want seed 42 and learning rate 0.001", saved.Provenance, err)
	}
	loaded, err := Load(b, dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Provenance() != p {
		t.Errorf("loaded provenance %+v, saved %+v", loaded.Provenance(), p)
	}

	// A spec.json of an older eccco (no provenance) loads with the zero Provenance.
	old := filepath.Join(t.TempDir(), "old")
	if err := smallMLP(t).Save(old); err != nil {
		t.Fatal(err)
	}
	legacy := `{"kind":"mlp","num_features":2,"num_classes":2,"hidden":4,"layers":1,"activation":"relu","members":1,"dataset":"toy"}`
	if err := os.WriteFile(filepath.Join(old, SpecFile), []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	lm, err := Load(b, old)
	if err != nil {
		t.Fatal(err)
	}
	if lm.Provenance() != (Provenance{}) || lm.Spec().Dataset != "toy" {
		t.Errorf("legacy spec: provenance %+v, data set %q; want zero and toy", lm.Provenance(), lm.Spec().Dataset)
	}
}

func TestProvenanceDiff(t *testing.T) {
	p := Provenance{Dataset: "moons", Seed: 1, Split: "a", Mode: "paper", Kind: KindMLP,
		Training: Training{Epochs: 100, BatchSize: 50, LearningRate: 0.001, Objective: "cross-entropy"}}
	if d := p.Diff(p); len(d) != 0 {
		t.Errorf("Diff with itself: %v, want none", d)
	}
	q := p
	q.Seed = 42
	if d := p.Diff(q); !slices.Equal(d, []string{"seed 1 ≠ 42"}) {
		t.Errorf("seed only: %v", d)
	}
	all := Provenance{Dataset: "circles", Seed: 2, Split: "b", Mode: "authors-code", Kind: KindJEM,
		Training: Training{Epochs: 10, BatchSize: 20, LearningRate: 0.5, Objective: "jem"}}
	want := []string{`dataset "moons" ≠ "circles"`, "seed 1 ≠ 2", `split "a" ≠ "b"`, `mode "paper" ≠ "authors-code"`,
		`kind "mlp" ≠ "jem"`, "epochs 100 ≠ 10", "batch size 50 ≠ 20", "learning rate 0.001 ≠ 0.5",
		`objective "cross-entropy" ≠ "jem"`}
	if d := p.Diff(all); !reflect.DeepEqual(d, want) {
		t.Errorf("every field:\n got %q\nwant %q", d, want)
	}
	timed := p
	timed.Training.Seconds = 12.5
	if d := timed.Diff(p); len(d) != 0 {
		t.Errorf("only the training time differs: %v, want no difference", d)
	}
	if d := (Provenance{}).Diff(p); len(d) != 9 {
		t.Errorf("zero against a full provenance: %d differences, want 9: %v", len(d), d)
	}
}

// Save writes only into nothing or an empty directory; a saved model is replaced only on request, and
// anything else is never touched.
func TestSaveNeverDeletesWhatIsThere(t *testing.T) {
	m := smallMLP(t)
	root := t.TempDir()

	empty := filepath.Join(root, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(empty); err != nil {
		t.Fatalf("saving into an empty directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, SpecFile)); err != nil {
		t.Error(err)
	}

	// A directory with other content: never replaced, even with Replace; the error says what is there.
	user := filepath.Join(root, "user")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, replace := range []bool{false, true} {
		err := saveOrReplace(m, user, replace)
		if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "notes.txt") {
			t.Errorf("replace %v over a directory with notes.txt: err = %v, want ErrExists naming notes.txt", replace, err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(user, "notes.txt")); err != nil || string(got) != "mine" {
		t.Errorf("notes.txt after refused saves: %q, %v", got, err)
	}

	// A saved model with a user's file beside it: not replaced either.
	if err := os.WriteFile(filepath.Join(empty, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Replace(empty); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "README") {
		t.Errorf("replacing a model with a README beside it: err = %v, want ErrExists naming README", err)
	}

	// A regular file at the target.
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Replace(file); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "file") {
		t.Errorf("saving over a file: err = %v, want ErrExists", err)
	}
	if got, _ := os.ReadFile(file); string(got) != "data" {
		t.Errorf("the file holds %q after a refused save", got)
	}

	// A VAE's directory (another spec file) is not a saved model.
	vaeDir := filepath.Join(root, "vae")
	if err := os.MkdirAll(vaeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vaeDir, "vae.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Replace(vaeDir); !errors.Is(err, ErrExists) {
		t.Errorf("saving over a VAE directory: err = %v, want ErrExists", err)
	}

	// CheckSaveDir says beforehand what Save would say, writing nothing.
	for _, c := range []struct {
		dir    string
		exists bool
	}{{filepath.Join(root, "new"), false}, {empty, true}, {user, true}, {file, true}} {
		err := CheckSaveDir(c.dir)
		if c.exists != errors.Is(err, ErrExists) || (!c.exists && err != nil) {
			t.Errorf("CheckSaveDir(%s) = %v, want ErrExists: %v", c.dir, err, c.exists)
		}
	}
	if err := CheckSaveDir(filepath.Join(file, "sub")); err == nil {
		t.Error("CheckSaveDir below a file: no error")
	}

	// No temporary directory is left next to the targets.
	if names := listDir(t, root); !slices.Equal(names, []string{"empty", "file", "user", "vae"}) {
		t.Errorf("the parent holds %v, want empty, file, user, vae", names)
	}
}

// Load tells "missing" (ErrNoModel) from "broken", and weights that do not fit the spec are an error,
// not a panic.
func TestLoadErrors(t *testing.T) {
	b := testBackend(t)
	if _, err := Load(b, filepath.Join(t.TempDir(), "nothing")); !errors.Is(err, ErrNoModel) {
		t.Errorf("a missing directory: err = %v, want ErrNoModel", err)
	}
	dir := filepath.Join(t.TempDir(), "m")
	if err := smallMLP(t).Save(dir); err != nil {
		t.Fatal(err)
	}
	// Another hidden width: the saved [2, 4] weights do not fit a hidden layer of 6.
	wide := `{"kind":"mlp","num_features":2,"num_classes":2,"hidden":6,"layers":1,"activation":"relu","members":1}`
	if err := os.WriteFile(filepath.Join(dir, SpecFile), []byte(wide), 0o644); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("Load panicked: %v", r)
			}
		}()
		_, err := Load(b, dir)
		if err == nil || errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), dir) {
			t.Errorf("weights of another hidden width: err = %v, want a non-ErrNoModel error naming %s", err, dir)
		}
	}()
	if err := os.WriteFile(filepath.Join(dir, SpecFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(b, dir); err == nil || errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "parsing") {
		t.Errorf("a corrupt spec: err = %v, want a parse error", err)
	}
}

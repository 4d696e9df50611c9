package savedir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/ml/model"
)

var errMissing = errors.New("no saved thing")

var testFormat = Format{What: "thing", SpecFile: "thing.json", ErrMissing: errMissing, ReplaceHint: "ask for it"}

type spec struct {
	Width int `json:"width"`
}

func store(t *testing.T) *model.Store {
	t.Helper()
	s := model.NewStore()
	s.RootScope().VariableWithValue("w", []float32{1, 2, 3})
	return s
}

func listNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func TestSaveRules(t *testing.T) {
	root := t.TempDir()
	s := store(t)
	dir := filepath.Join(root, "a", "thing")
	if err := testFormat.Save(dir, spec{Width: 3}, s, false); err != nil {
		t.Fatalf("saving into nothing: %v", err)
	}
	var got spec
	if err := testFormat.ReadSpec(dir, &got); err != nil || got.Width != 3 {
		t.Fatalf("spec %+v, %v; want width 3", got, err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("directory permission %v (%v), want rwxr-xr-x", fi.Mode().Perm(), err)
	}
	if err := testFormat.Save(dir, spec{Width: 4}, s, false); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "ask for it") {
		t.Errorf("saving over a saved thing: err = %v, want ErrExists with the hint", err)
	}
	if err := testFormat.ReadSpec(dir, &got); err != nil || got.Width != 3 {
		t.Errorf("after a refused save the spec is %+v (%v), want the old width 3", got, err)
	}
	if err := testFormat.Save(dir, spec{Width: 4}, s, true); err != nil {
		t.Fatalf("replacing on request: %v", err)
	}
	if err := testFormat.ReadSpec(dir, &got); err != nil || got.Width != 4 {
		t.Errorf("after replacing the spec is %+v (%v), want width 4", got, err)
	}
	if n := listNames(t, filepath.Dir(dir)); !slices.Equal(n, []string{"thing"}) {
		t.Errorf("next to the saved thing: %v, want nothing else", n)
	}

	// A directory holding something else, or a file: refused whether or not replacing, and untouched.
	other := filepath.Join(root, "other")
	_ = os.MkdirAll(filepath.Join(other, "sub"), 0o755)
	file := filepath.Join(root, "file")
	_ = os.WriteFile(file, []byte("x"), 0o644)
	for _, target := range []string{other, file} {
		for _, replace := range []bool{false, true} {
			err := testFormat.Save(target, spec{}, s, replace)
			if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), target) {
				t.Errorf("%s, replace %v: err = %v, want ErrExists naming the target", target, replace, err)
			}
		}
	}
	if n := listNames(t, other); !slices.Equal(n, []string{"sub"}) {
		t.Errorf("other holds %v, want sub", n)
	}
	if n := listNames(t, root); !slices.Equal(n, []string{"a", "file", "other"}) {
		t.Errorf("root holds %v, want a, file, other (no temporary directory)", n)
	}
	// A parent path that is a file.
	if err := testFormat.Save(filepath.Join(file, "thing"), spec{}, s, false); err == nil {
		t.Error("saving below a file: no error")
	}
}

// loadWeights reads the checkpoint in dir into s and builds on it with build, as Weights says a caller does.
func loadWeights(dir string, s *model.Store, build func() error) (err error) {
	w, err := testFormat.ReadWeights(dir, s)
	if err != nil {
		return err
	}
	defer w.Recover(&err)
	return w.Check(build())
}

func TestLoadWeights(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "thing")
	if err := testFormat.Save(dir, spec{Width: 3}, store(t), false); err != nil {
		t.Fatal(err)
	}
	if err := loadWeights(dir, model.NewStore(), func() error { return nil }); err != nil {
		t.Errorf("loading: %v", err)
	}
	// initialize creating a weight the checkpoint lacks.
	s := model.NewStore()
	err := loadWeights(dir, s, func() error {
		s.RootScope().VariableWithValue("extra", []float32{0})
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("a missing weight: err = %v, want one naming it", err)
	}
	// An error of the build is returned, with the directory.
	err = loadWeights(dir, model.NewStore(), func() error { return errors.New("no graph") })
	if err == nil || !strings.Contains(err.Error(), "no graph") || !strings.Contains(err.Error(), dir) {
		t.Errorf("a build's error: err = %v, want it with the directory", err)
	}
	// A panic while initialising is an error.
	err = loadWeights(dir, model.NewStore(), func() error { panic("shape mismatch") })
	if err == nil || !strings.Contains(err.Error(), "shape mismatch") || !strings.Contains(err.Error(), dir) {
		t.Errorf("a panic: err = %v, want an error", err)
	}
	// A damaged checkpoint (its weights cut short, or its index not JSON) is an error, not a panic.
	for _, damage := range []struct{ suffix, content string }{{".bin", "\x01\x02"}, {".json", "{not json"}} {
		bad := filepath.Join(t.TempDir(), "thing")
		if err := testFormat.Save(bad, spec{Width: 3}, store(t), false); err != nil {
			t.Fatal(err)
		}
		names, _ := filepath.Glob(filepath.Join(bad, "checkpoint-*"+damage.suffix))
		if len(names) != 1 {
			t.Fatalf("checkpoint files %v", names)
		}
		if err := os.WriteFile(names[0], []byte(damage.content), 0o644); err != nil {
			t.Fatal(err)
		}
		s := model.NewStore()
		err := loadWeights(bad, s, func() error {
			s.RootScope().VariableWithValue("w", []float32{0, 0, 0})
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("a damaged %s: err = %v, want an error naming the directory", damage.suffix, err)
		}
	}
	// No spec file: ErrMissing.
	var sp spec
	if err := testFormat.ReadSpec(filepath.Join(t.TempDir(), "none"), &sp); !errors.Is(err, errMissing) {
		t.Errorf("no directory: err = %v, want ErrMissing", err)
	}
}

// GoMLX names a checkpoint after the wall-clock time of saving (checkpoint-n0000000-20261127-183849-…), so
// the same model saved by two runs (a killed one resumed and an uninterrupted one) made different trees.
// Save drops the time: the same store saved twice is the same names and bytes, and it loads.
func TestSavedTreeCarriesNoTime(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, dir := range []string{a, b} {
		if err := testFormat.Save(dir, spec{Width: 3}, store(t), false); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"checkpoint-n0000000-initial.bin", "checkpoint-n0000000-initial.json", "thing.json"}
	for _, dir := range []string{a, b} {
		if got := listNames(t, dir); !slices.Equal(got, want) {
			t.Errorf("%s holds %v, want %v", dir, got, want)
		}
	}
	for _, name := range want {
		x, err1 := os.ReadFile(filepath.Join(a, name))
		y, err2 := os.ReadFile(filepath.Join(b, name))
		if err1 != nil || err2 != nil || string(x) != string(y) {
			t.Errorf("%s differs between two saves of one store (%v, %v)", name, err1, err2)
		}
	}
	s := model.NewStore()
	if err := loadWeights(a, s, func() error {
		s.RootScope().VariableWithValue("w", []float32{0, 0, 0})
		return nil
	}); err != nil {
		t.Fatalf("loading the renamed checkpoint: %v", err)
	}
	v := s.RootScope().GetVariable("w")
	if v == nil {
		t.Fatal("no variable w after loading")
	}
	if got := fmt.Sprint(v.MustValue().Value()); got != "[1 2 3]" {
		t.Errorf("w = %s after loading, want [1 2 3]", got)
	}
}

package data

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestNamesAndLookup(t *testing.T) {
	want := []string{"linearly-separable", "moons", "circles", "california-housing", "gmsc", "german-credit", "mnist", "fashion-mnist"}
	if got := Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v", got)
	}
	titles := []string{"Linearly Separable", "Moons", "Circles", "California Housing", "GMSC", "German Credit", "MNIST", "Fashion MNIST"}
	kinds := []string{"synthetic", "synthetic", "synthetic", "tabular", "tabular", "tabular", "vision", "vision"}
	for i, name := range want {
		info, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if info.Name != name || info.Title != titles[i] || info.Kind != kinds[i] || info.Source == "" || info.Licence == "" {
			t.Errorf("Lookup(%q) = %+v", name, info)
		}
		if (info.Kind == KindSynthetic) != (info.Files == nil) {
			t.Errorf("%s: files %v", name, info.Files)
		}
	}
	info, _ := Lookup("mnist")
	if !reflect.DeepEqual(info.Files, []string{"mnist/train-images-idx3-ubyte", "mnist/train-labels-idx1-ubyte",
		"mnist/t10k-images-idx3-ubyte", "mnist/t10k-labels-idx1-ubyte"}) {
		t.Errorf("mnist files %v", info.Files)
	}
	info.Files[0] = "changed" // callers cannot modify the registry
	if again, _ := Lookup("mnist"); again.Files[0] == "changed" {
		t.Error("Lookup returns the registry's own slice")
	}
	_, err := Lookup("Moons")
	if err == nil || !strings.Contains(err.Error(), strings.Join(want, ", ")) {
		t.Errorf("Lookup of an unknown name: %v", err)
	}
	if !errors.Is(err, ErrUnknownDataset) {
		t.Errorf("Lookup of an unknown name: %v does not wrap ErrUnknownDataset", err)
	}
	if _, err := Load("nope", Options{}); err == nil || !strings.Contains(err.Error(), "known data sets are") || !errors.Is(err, ErrUnknownDataset) {
		t.Errorf("Load of an unknown name: %v", err)
	}
	if _, err := Present("nope", ""); !errors.Is(err, ErrUnknownDataset) {
		t.Errorf("Present of an unknown name: %v", err)
	}
}

// TestLoadNotAvailable: a set whose files are missing is ErrNotAvailable, with the command that fetches it.
func TestLoadNotAvailable(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"california-housing", "gmsc", "german-credit", "mnist", "fashion-mnist"} {
		_, err := Load(name, Options{Dir: dir})
		if !errors.Is(err, ErrNotAvailable) || errors.Is(err, ErrUnknownDataset) {
			t.Errorf("%s missing: %v; want ErrNotAvailable", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "eccco data fetch "+name) {
			t.Errorf("%s missing: %v does not say how to fetch it", name, err)
		}
	}
}

// TestLoadRejectsNonsensicalOptions: negative sizes and a synthetic set too small for a test row of each
// class are errors wrapping ErrInvalidOption (they used to fall back to the paper's sizes silently).
func TestLoadRejectsNonsensicalOptions(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"moons", Options{N: -1}, "Options.N = -1 is negative"},
		{"circles", Options{N: -3125}, "Options.N = -3125 is negative"},
		{"gmsc", Options{Dir: dir, N: -1}, "Options.N = -1 is negative"},
		{"mnist", Options{Dir: dir, PerClass: -1}, "Options.PerClass = -1 is negative"},
		{"moons", Options{PerClass: -5}, "Options.PerClass = -5 is negative"},
		// 9 points: round(9/2) = 4 (half to even), floor(0.2·4) = 0 test rows per class.
		{"linearly-separable", Options{N: 9}, "no test rows"},
		{"moons", Options{N: 2}, "no test rows"},
	} {
		_, err := Load(tc.name, tc.opts)
		if !errors.Is(err, ErrInvalidOption) || errors.Is(err, ErrNotAvailable) {
			t.Errorf("Load(%s, %+v) = %v; want ErrInvalidOption", tc.name, tc.opts, err)
			continue
		}
		wantErr(t, err, tc.want, tc.name)
	}
	// 10 points: round(10/2) = 5, floor(0.2·5) = 1 test row per class, 8 training rows.
	s, err := Load("moons", Options{N: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Train.N() != 8 || !reflect.DeepEqual(s.Test.ClassCounts(), []int{1, 1}) {
		t.Errorf("N = 10: %d training rows, test class counts %v; want 8 and [1 1]", s.Train.N(), s.Test.ClassCounts())
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv(EnvDataDir, "/some/where")
	if got := DefaultDir(); got != "/some/where" {
		t.Errorf("with %s set: %q", EnvDataDir, got)
	}
	t.Setenv(EnvDataDir, "")
	// Inside this repository (the test runs in eccco/data): <root>/data/cache.
	wd, _ := os.Getwd()
	root := filepath.Dir(filepath.Dir(wd))
	if got := DefaultDir(); got != filepath.Join(root, "data", "cache") {
		t.Errorf("inside the repository: %q, want %q", got, filepath.Join(root, "data", "cache"))
	}
	// Inside another module: the user cache directory.
	other := t.TempDir()
	writeFile(t, other, "go.mod", []byte("module example.com/other\n\ngo 1.26\n"))
	writeFile(t, other, "sub/x.txt", nil)
	t.Chdir(filepath.Join(other, "sub"))
	want := filepath.Join(os.TempDir(), "eccco")
	if c, err := os.UserCacheDir(); err == nil {
		want = filepath.Join(c, "eccco")
	}
	if got := DefaultDir(); got != want {
		t.Errorf("outside the repository: %q, want %q", got, want)
	}
	// A checkout elsewhere is recognised by its go.mod's module line.
	clone := t.TempDir()
	writeFile(t, clone, "go.mod", []byte("// comment\nmodule github.com/eccco-go/eccco-go\n"))
	writeFile(t, clone, "a/b/c.txt", nil)
	t.Chdir(filepath.Join(clone, "a", "b"))
	if got := DefaultDir(); got != filepath.Join(clone, "data", "cache") {
		t.Errorf("in a checkout: %q", got)
	}
	if root, ok := ModuleRoot(filepath.Join(clone, "a", "b")); !ok || root != clone {
		t.Errorf("ModuleRoot in a checkout = %q, %v; want %q", root, ok, clone)
	}
	// Another module nested inside the checkout is skipped; outside any checkout there is no root.
	writeFile(t, clone, "a/go.mod", []byte("module example.com/nested\n"))
	if root, ok := ModuleRoot(filepath.Join(clone, "a", "b")); !ok || root != clone {
		t.Errorf("ModuleRoot under a nested module = %q, %v; want %q", root, ok, clone)
	}
	if root, ok := ModuleRoot(filepath.Join(other, "sub")); ok {
		t.Errorf("ModuleRoot outside a checkout = %q, true", root)
	}
}

func TestPresent(t *testing.T) {
	dir := t.TempDir()
	for _, name := range Names() {
		ok, err := Present(name, dir)
		if err != nil || ok != (name == "linearly-separable" || name == "moons" || name == "circles") {
			t.Errorf("Present(%q) in an empty dir = %v, %v", name, ok, err)
		}
	}
	writeFile(t, dir, "gmsc.csv", []byte("x"))
	if ok, _ := Present("gmsc", dir); !ok {
		t.Error("gmsc.csv exists but Present is false")
	}
	for i, base := range idxBases {
		if ok, _ := Present("mnist", dir); ok {
			t.Errorf("Present true with %d of 4 files", i)
		}
		name := base
		if i%2 == 1 {
			name += ".gz"
		}
		writeFile(t, dir, "mnist/"+name, []byte("x"))
	}
	if ok, err := Present("mnist", dir); !ok || err != nil {
		t.Errorf("Present(mnist) with raw and .gz files = %v, %v", ok, err)
	}
	if err := os.Mkdir(filepath.Join(dir, "german_credit.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Present("german-credit", dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory in place of the CSV: %v", err)
	}
}

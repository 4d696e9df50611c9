package data

import (
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
	if _, err := Load("nope", Options{}); err == nil || !strings.Contains(err.Error(), "known data sets are") {
		t.Errorf("Load of an unknown name: %v", err)
	}
	if _, err := Present("nope", ""); err == nil {
		t.Error("Present of an unknown name: no error")
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

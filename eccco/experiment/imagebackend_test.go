package experiment

import (
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
)

// Options.ImageBackend runs the image data sets' experiments, and only theirs.
func TestImageBackendRunsOnlyTheImageSets(t *testing.T) {
	base, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	img, err := backend.NewWithConfig("go") // another configuration: another backend value
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Backend: base, ImageBackend: img, DataDir: t.TempDir(), ModelsDir: t.TempDir()}
	e, err := Open("moons", opts)
	if err != nil {
		t.Fatal(err)
	}
	if e.Backend() != base {
		t.Error("moons runs on the image backend")
	}
	if ok, err := data.Present("mnist", ""); err != nil || !ok {
		t.Skip("MNIST is not fetched here (eccco data fetch mnist): its backend is not checked")
	}
	opts.DataDir = ""
	for _, o := range []Options{opts, {ImageBackend: img, ModelsDir: t.TempDir()}} {
		m, err := Open("mnist", o)
		if err != nil {
			t.Fatal(err)
		}
		if m.Backend() != img {
			t.Errorf("mnist does not run on the image backend (Backend %v)", o.Backend)
		}
	}
	opts.ImageBackend = nil
	if m, err := Open("mnist", opts); err != nil || m.Backend() != base {
		t.Errorf("mnist without an image backend: %v, backend %v; want Backend's", err, m.Backend())
	}
}

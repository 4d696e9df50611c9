package figures

import (
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
)

// Env.ImageBackend runs the image data sets' experiments, and only theirs.
func TestEnvImageBackend(t *testing.T) {
	base, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	img, err := backend.NewWithConfig("go") // another configuration: another backend value
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := NewEnv(experiment.Options{Backend: base, DataDir: dir, ModelsDir: t.TempDir()})
	env.ImageBackend = img
	e, err := env.Experiment("moons")
	if err != nil {
		t.Fatal(err)
	}
	if e.Backend() != base {
		t.Error("moons runs on the image backend")
	}
	ok, err := data.Present("mnist", "")
	if err != nil || !ok {
		t.Skip("MNIST is not fetched here (eccco data fetch mnist): its backend is not checked")
	}
	env.Options.DataDir = ""
	m, err := env.Experiment("mnist")
	if err != nil {
		t.Fatal(err)
	}
	if m.Backend() != img {
		t.Error("mnist does not run on the image backend")
	}
}

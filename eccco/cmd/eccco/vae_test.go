package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

func TestVAETrainsAndSaves(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := filepath.Join(t.TempDir(), "vae")
	out, _, err := runCLI(t, "vae", "--data", "circles", "--set", "epochs=3", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"VAE on circles (latent 2, hidden 32", "3 epochs", "reconstruction MSE", "predicting the training mean", "saved to"} {
		if !strings.Contains(out, want) {
			t.Errorf("vae output lacks %q:\n%s", want, out)
		}
	}
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	v, err := vae.Load(b, dir)
	if err != nil {
		t.Fatalf("the saved VAE does not load: %v", err)
	}
	// The loaded VAE is REVISE's latent map: encode a row and decode it back.
	var lm counterfactual.LatentMap = v
	z, err := lm.Encode(b, []float32{0.5, -0.5})
	if err != nil || len(z) != lm.LatentDim() {
		t.Errorf("Encode: %v values, err %v; want %d", len(z), err, lm.LatentDim())
	}

	if out, _, err := runCLI(t, "vae", "--data", "circles", "--set", "epochs=1", "--out", "none"); err != nil || strings.Contains(out, "saved to") {
		t.Errorf("--out none: err %v, output:\n%s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"vae"}, "--data is required"},
		{[]string{"vae", "--data", "nosuch"}, "nosuch"},
		{[]string{"vae", "--data", "moons", "--set", "epochs=-1"}, "epochs"},
		{[]string{"vae", "--data", "moons", "extra"}, "unexpected arguments"},
	} {
		if _, _, err := runCLI(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eccco %s: err = %v, want it to mention %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// Without --out, vae uses the experiment's VAE: the first run trains and saves it where explain and bench
// look, a second run loads and reports it instead of refusing or training again.
func TestVAEDefaultLoadsWhatIsSaved(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	args := []string{"vae", "--data", "circles", "--set", "epochs=2", "--models-dir", t.TempDir()}
	out, stderr, err := runCLI(t, args...)
	if err != nil || !strings.Contains(stderr, "training one") || !strings.Contains(out, "reconstruction MSE") {
		t.Fatalf("first run: %v\n%s\n%s", err, out, stderr)
	}
	out, stderr, err = runCLI(t, args...)
	if err != nil || strings.Contains(stderr, "training") || !strings.Contains(stderr, "loaded") || !strings.Contains(out, "reconstruction MSE") {
		t.Errorf("second run: %v\n%s\n%s", err, out, stderr)
	}
}

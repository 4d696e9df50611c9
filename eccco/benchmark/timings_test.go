package benchmark

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// The stage timings count the units computed (2 models × 1 generator × 2 runs = 4) and every stage; a
// resumed run that computes nothing leaves them as they were.
func TestTimingsCountComputedUnits(t *testing.T) {
	dir := t.TempDir()
	gens, err := experiment.ParseGenerators("Wachter")
	if err != nil {
		t.Fatal(err)
	}
	p := Protocol{Dataset: "circles", Models: []models.Kind{models.KindMLP, models.KindMLPEnsemble}, Generators: gens, Runs: 2, Factuals: 4, Seed: 3}
	r := newRunner(t, filepath.Join(dir, "out"), filepath.Join(dir, "models"))
	r.Training = experiment.Training{Epochs: 2}
	for range 2 {
		if err := r.Run(context.Background(), p, Shard{1, 1}); err != nil {
			t.Fatal(err)
		}
		tm, err := ReadTimings(r.Out, "circles")
		if err != nil {
			t.Fatal(err)
		}
		if tm.Units != 4 {
			t.Errorf("timings count %d units, want 4", tm.Units)
		}
		for _, s := range Stages {
			if tm.Seconds[s] <= 0 {
				t.Errorf("stage %s: %v s, want > 0", s, tm.Seconds[s])
			}
		}
	}
}

package figures

import (
	"context"
	"math"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/plot"
)

func quickExperiment(t *testing.T, dataset string) *experiment.Experiment {
	t.Helper()
	b, err := backend.Shared()
	if err != nil {
		t.Fatal(err)
	}
	e, err := experiment.Open(dataset, experiment.Options{Backend: b, ModelsDir: t.TempDir(), Training: experiment.Training{Epochs: 5}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Fig. 2's data: each plotted path starts at the factual and ends at the counterfactual that the search
// returned; the factual is of the orange class (1) and the target blue (0); the stars are the target
// class's samples; the set-size surface equals the conformal prediction set size computed point by point.
func TestSyntheticDataFacts(t *testing.T) {
	ctx := context.Background()
	e := quickExperiment(t, "linearly-separable")
	s, err := SyntheticData(ctx, e, models.KindJEM, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Panels) != len(POCGenerators) {
		t.Fatalf("%d panels, want %d", len(s.Panels), len(POCGenerators))
	}
	factual := s.Results[0].Factuals
	if e.Split().Test.Y[factual.Rows[0]] != 1 || factual.Targets[0] != 0 {
		t.Errorf("factual of class %d with target %d, want 1 → 0", e.Split().Test.Y[factual.Rows[0]], factual.Targets[0])
	}
	for i, p := range s.Panels {
		steps, cf := p.Path.Steps, s.Results[i].Result.X
		n := len(steps) / 2
		if n < 2 {
			t.Fatalf("%s: a path of %d points", p.Generator, n)
		}
		if steps[0] != factual.X[0] || steps[1] != factual.X[1] {
			t.Errorf("%s: path starts at (%v, %v), the factual is (%v, %v)", p.Generator, steps[0], steps[1], factual.X[0], factual.X[1])
		}
		if steps[2*n-2] != cf[0] || steps[2*n-1] != cf[1] {
			t.Errorf("%s: path ends at (%v, %v), Search returned (%v, %v)", p.Generator, steps[2*n-2], steps[2*n-1], cf[0], cf[1])
		}
		if len(p.Samples) == 0 || &p.Samples[0] != &s.Samples[0][0] {
			t.Errorf("%s: the stars are not the target class's samples", p.Generator)
		}
	}
	// The set-size surface against the calibrated model's prediction sets, point by point.
	gens, err := experiment.ParseGenerators(POCGenerators...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Run(ctx, experiment.RunRequest{Kind: models.KindJEM, Run: 1, Factuals: factual, Generators: gens})
	if err != nil {
		t.Fatal(err)
	}
	g := s.Grid
	for _, ij := range [][2]int{{0, 0}, {SurfacePoints / 2, SurfacePoints / 3}, {SurfacePoints - 1, SurfacePoints - 1}, {7, 61}, {40, 40}} {
		iy, ix := ij[0], ij[1]
		sets, err := r.Ingredients.Calibrated.PredictionSets(e.Backend(), []float32{float32(g.X[ix]), float32(g.Y[iy])})
		if err != nil {
			t.Fatal(err)
		}
		if want := float64(len(sets[0])); math.Abs(g.SetSize[iy][ix]-want) > 1e-9 {
			t.Errorf("set size at (%.3f, %.3f) = %v, the prediction set there has %v classes", g.X[ix], g.Y[iy], g.SetSize[iy][ix], want)
		}
	}
	for _, draw := range []func() (plot.Figure, error){s.POC, s.POCGen, s.CPDiff} {
		fig, err := draw()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fig.PNG(); err != nil {
			t.Fatal(err)
		}
	}
}

// Every catalog entry has a unique name, the paper's figures carry their labels, and Lookup refuses
// unknown names.
func TestCatalog(t *testing.T) {
	seen := map[string]bool{}
	labels := map[string]bool{}
	for _, s := range Catalog() {
		if seen[s.Name] {
			t.Errorf("figure %s listed twice", s.Name)
		}
		seen[s.Name] = true
		if s.Label != "" {
			labels[s.Label] = true
		}
		if s.Make == nil || s.Caption == "" || len(s.Datasets) == 0 {
			t.Errorf("figure %s lacks a maker, caption or data set", s.Name)
		}
		if s.InPaper() && s.Claim == "" {
			t.Errorf("the paper's figure %s carries no claim", s.Name)
		}
	}
	for _, l := range []string{"fig:motiv", "fig:poc", "fig:mnist-bmk", "fig:mnist-gen", "fig:poc-gen", "fig:cp-diff", "fig:vae-rec",
		"fig:mnist-eccco-lenet", "fig:mnist-eccco-mlp", "fig:mnist-eccco-mlp-ens", "fig:mnist-eccco-jem", "fig:mnist-eccco-jem-ens",
		"fig:mnist-revise-lenet", "fig:mnist-revise-mlp", "fig:mnist-revise-mlp-ens", "fig:mnist-revise-jem", "fig:mnist-revise-jem-ens"} {
		if !labels[l] {
			t.Errorf("the paper's %s is not in the catalog", l)
		}
	}
	if _, err := Lookup("fig2-poc", "no-such-figure"); err == nil {
		t.Error("Lookup of an unknown figure: no error")
	}
}

package catalogue_test

import (
	"testing"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/data"
)

// TestRowsAsInThePaper checks rows against the paper's appendix tables as read from the LaTeX
// (paper/contents/*.tex; the line of each row is noted).
func TestRowsAsInThePaper(t *testing.T) {
	// table_params.tex: Dataset & Sample Size & Hidden Units & Hidden Layers & Activation & Ensemble Size &
	// Epochs & Batch Size.
	params := []struct {
		line, name              string
		sample, hidden, layers  int
		act                     string
		ensemble, epochs, batch int
	}{
		{"12", "linearly-separable", 1000, 16, 3, "swish", 5, 100, 100}, // Linearly Separable & 1000 & 16 & 3 & swish & 5 & 100 & 100
		{"13", "moons", 2500, 32, 3, "relu", 5, 500, 128},               // Moons & 2500 & 32 & 3 & relu & 5 & 500 & 128
		{"17", "german-credit", 800, 32, 3, "relu", 5, 100, 80},         // German Credit & 800 & 32 & 3 & relu & 5 & 100 & 80
		{"18", "mnist", 10000, 32, 1, "relu", 5, 100, 128},              // MNIST & 10000 & 32 & 1 & relu & 5 & 100 & 128
		{"19", "fashion-mnist", 10000, 32, 2, "relu", 5, 100, 128},      // Fashion MNIST & 10000 & 32 & 2 & relu & 5 & 100 & 128
	}
	for _, c := range params {
		d := row(t, c.name)
		m := d.Model
		if d.SampleSize != c.sample || m.Hidden != c.hidden || m.Layers != c.layers || m.Activation != c.act ||
			m.EnsembleSize != c.ensemble || m.Epochs != c.epochs || m.BatchSize != c.batch {
			t.Errorf("table_params.tex:%s (%s): row has sample %d, %+v", c.line, c.name, d.SampleSize, m)
		}
	}
	// table_ebm_params.tex: Dataset & SGLD Steps & Batch Size & λ.
	ebm := []struct {
		line, name     string
		steps, samples int
		lambda         float64
	}{
		{"33", "linearly-separable", 50, 50, 0.10}, // Linearly Separable & 50 & 50 & 0.10
		{"35", "circles", 30, 50, 0.01},            // Circles & 30 & 50 & 0.01
		{"37", "gmsc", 30, 10, 0.10},               // GMSC & 30 & 10 & 0.10
		{"40", "fashion-mnist", 25, 10, 0.01},      // Fashion MNIST & 25 & 10 & 0.01
	}
	for _, c := range ebm {
		j := row(t, c.name).JEM
		if j.SGLDSteps != c.steps || j.Samples != c.samples || j.Lambda != c.lambda {
			t.Errorf("table_ebm_params.tex:%s (%s): row has %+v", c.line, c.name, j)
		}
	}
	// table_gen_params.tex: Dataset & η & λ1 & λ2 & λ3 & Ridge penalty.
	gen := []struct {
		line, name             string
		eta, l1, l2, l3, ridge float64
	}{
		{"54", "linearly-separable", 0.05, 0.10, 0.1, 0.5, 0.0}, // Linearly Separable & 0.05 & 0.10 & 0.1 & 0.5 & 0.0
		{"55", "moons", 0.05, 0.10, 0.1, 0.2, 0.0},              // Moons & 0.05 & 0.10 & 0.1 & 0.2 & 0.0
		{"59", "german-credit", 0.05, 0.10, 0.1, 0.1, 0.5},      // German Credit & 0.05 & 0.10 & 0.1 & 0.1 & 0.5
		{"60", "mnist", 0.05, 0.01, 0.1, 0.3, 0.0},              // MNIST & 0.05 & 0.01 & 0.1 & 0.3 & 0.0
	}
	for _, c := range gen {
		p := row(t, c.name).GeneratorParams()
		if p.StepSize != c.eta || p.Cost != c.l1 || p.SetSize != c.l2 || p.Energy != c.l3 || p.Ridge != c.ridge ||
			p.DecayRate != 0 || p.DecayEvery != 0 {
			t.Errorf("table_gen_params.tex:%s (%s): row has %+v", c.line, c.name, p)
		}
	}
	// appendix.tex:76 ("At inference time"): "For all of our synthetic datasets and models, we generated 50
	// conditional samples and then formed subsets containing the n_E = 25 lowest-energy samples. [...] for
	// our real-world datasets we have generated only 10 conditional samples each time and used all of them".
	for _, c := range []struct {
		name         string
		chains, keep int
	}{{"linearly-separable", 50, 25}, {"circles", 50, 25}, {"german-credit", 10, 10}, {"mnist", 10, 10}} {
		if in := row(t, c.name).Inference; in.Chains != c.chains || in.Keep != c.keep {
			t.Errorf("appendix.tex:76 (%s): %+v, want %d chains keeping %d", c.name, in, c.chains, c.keep)
		}
	}
	// appendix.tex:237 (app:setup): n_f = 100 factuals, 50 runs for synthetic and tabular data, 10 runs for
	// vision data.
	for _, c := range []struct {
		name string
		runs int
	}{{"circles", 50}, {"gmsc", 50}, {"mnist", 10}, {"fashion-mnist", 10}} {
		if d := row(t, c.name); d.Runs != c.runs || d.Factuals != 100 {
			t.Errorf("appendix.tex:237 (%s): %d runs of %d factuals, want %d of 100", c.name, d.Runs, d.Factuals, c.runs)
		}
	}
}

// TestOneRowPerDataSet checks that the table has one row for each of package data's sets, in its order.
func TestOneRowPerDataSet(t *testing.T) {
	names := data.Names()
	if len(catalogue.Datasets) != len(names) {
		t.Fatalf("%d rows for %d data sets", len(catalogue.Datasets), len(names))
	}
	for i, d := range catalogue.Datasets {
		if d.Name != names[i] {
			t.Errorf("row %d is %q, data.Names()[%d] is %q", i, d.Name, i, names[i])
		}
	}
	if _, err := catalogue.LookupDataset("imagenet"); err == nil {
		t.Error("LookupDataset(imagenet) gave a row")
	}
}

func row(t *testing.T, name string) catalogue.Dataset {
	t.Helper()
	d, err := catalogue.LookupDataset(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

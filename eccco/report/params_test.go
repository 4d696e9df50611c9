package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/experiment"
)

// The parameter tables carry the paper's values (table_gen_params.tex: German Credit has λ energy 0.1 and
// ridge 0.5; table_ebm_params.tex: moons 30 SGLD steps and 10 samples).
func TestParameterTables(t *testing.T) {
	dir := t.TempDir()
	if err := WriteParameterTables(dir); err != nil {
		t.Fatal(err)
	}
	gen, _ := os.ReadFile(filepath.Join(dir, "params-generators.md"))
	if !bytes.Contains(gen, []byte("| german-credit | 0.05 | 0.1 | 0.1 | 0.1 | 0.5 |")) {
		t.Errorf("generator table lacks German Credit's row:\n%s", gen)
	}
	ebm, _ := os.ReadFile(filepath.Join(dir, "params-ebm.tex"))
	if !bytes.Contains(ebm, []byte("moons & 30 & 10 & 0.1\\\\")) {
		t.Errorf("EBM table lacks the moons row:\n%s", ebm)
	}
}

// TestModelParametersAsRun checks the as-run table against the authors' scripts: on images their
// builder has 128 swish units in one layer (ECCCo.jl experiments/mnist.jl:45, fmnist.jl:45), where the
// paper's table prints 32 relu units (two layers for Fashion-MNIST); a model of epochs 0 is theirs, loaded.
func TestModelParametersAsRun(t *testing.T) {
	perf := []Perf{{Dataset: "moons", Model: "mlp", TrainRows: 1250}, {Dataset: "fashion-mnist", Model: "mlp", TrainRows: 5000, Epochs: 100}}
	pt, err := ModelParametersAsRun(perf, experiment.AuthorsCode)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| moons | 2500 | 1250 | 32 | 3 | relu | 5 | authors' | 128 |",
		"| fashion-mnist | 10000 | 5000 | 128 (paper 32) | 1 (paper 2) | swish (paper relu) | 5 | 100 | 128 |",
	} {
		if !strings.Contains(pt.Markdown, want) {
			t.Errorf("missing %q in\n%s", want, pt.Markdown)
		}
	}
	if strings.Contains(pt.Markdown, "| mnist |") {
		t.Error("a data set without models is listed")
	}
	// In the paper's equations the architecture is the paper's.
	pp, err := ModelParametersAsRun(perf, experiment.Paper)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pp.Markdown, "| fashion-mnist | 10000 | 5000 | 32 | 2 | relu | 5 | 100 | 128 |") {
		t.Errorf("paper mode:\n%s", pp.Markdown)
	}
}

package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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

// paperTable reads the rows of one of the paper's LaTeX tables (the paper's sources in shared/paper/,
// contents/NAME), by eccco's data-set name ("Fashion MNIST" → fashion-mnist); it skips the test where
// the sources are absent.
func paperTable(t *testing.T, name string) map[string][]float64 {
	t.Helper()
	var raw []byte
	for _, dir := range []string{filepath.Join("..", "..", "shared", "paper"), filepath.Join("..", "..", "..", "shared", "paper"), "/work/shared/paper"} {
		var err error
		if raw, err = os.ReadFile(filepath.Join(dir, "contents", name)); err == nil {
			break
		}
	}
	if raw == nil {
		t.Skipf("the paper's %s is not here (shared/paper/contents)", name)
	}
	_, body, ok := strings.Cut(string(raw), `\midrule`)
	if !ok {
		t.Fatalf("%s: no \\midrule", name)
	}
	body, _, _ = strings.Cut(body, `\bottomrule`)
	rows := map[string][]float64{}
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSuffix(strings.TrimSpace(l), `\\`)
		if l == "" {
			continue
		}
		cells := strings.Split(l, "&")
		ds := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(cells[0])), " ", "-")
		for _, c := range cells[1:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(c), 64)
			if err != nil {
				t.Fatalf("%s, %s: %v", name, ds, err)
			}
			rows[ds] = append(rows[ds], v)
		}
	}
	if len(rows) != 8 {
		t.Fatalf("%s: %d rows, want the paper's 8 data sets", name, len(rows))
	}
	return rows
}

// checkNumbers compares the first len(want) columns after the data set of a Markdown table's rows with
// the paper's numbers, by value.
func checkNumbers(t *testing.T, table, md string, want map[string][]float64) {
	t.Helper()
	_, rows := mdTable(md)
	if len(rows) != len(want) {
		t.Errorf("%s: %d rows, the paper's table %d", table, len(rows), len(want))
	}
	for _, r := range rows {
		w, ok := want[r[0]]
		if !ok || len(r) < 1+len(w) {
			t.Errorf("%s: row %q has no counterpart in the paper's table", table, r)
			continue
		}
		for i, v := range w {
			got, err := strconv.ParseFloat(r[1+i], 64)
			if err != nil || got != v {
				t.Errorf("%s, %s, column %d: %q, the paper's table %v", table, r[0], 1+i, r[1+i], v)
			}
		}
	}
}

// The paper's-settings tables, and the paper's-equations mode's as-run tables, print the numbers of the
// paper's table_ebm_params.tex and table_gen_params.tex, read from the paper's sources; in that mode
// nothing differs from the paper (no bracket) and no generator departs from the row.
func TestParameterTablesEqualThePaper(t *testing.T) {
	ebm, gen := paperTable(t, "table_ebm_params.tex"), paperTable(t, "table_gen_params.tex")
	pts, err := ParameterTables()
	if err != nil {
		t.Fatal(err)
	}
	checkNumbers(t, "params-ebm", pts[1].Markdown, ebm)
	checkNumbers(t, "params-generators", pts[2].Markdown, gen)
	asRun, err := ParameterTablesAsRun(experiment.Paper, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkNumbers(t, "params-ebm-as-run", asRun[0].Markdown, ebm)
	checkNumbers(t, "params-generators-as-run", asRun[1].Markdown, gen)
	for _, pt := range asRun {
		if strings.Contains(pt.Markdown, "(paper") {
			t.Errorf("%s: the paper's-equations mode differs from the paper:\n%s", pt.Name, pt.Markdown)
		}
	}
	_, rows := mdTable(asRun[1].Markdown)
	for _, r := range rows {
		if r[len(r)-1] != "none" {
			t.Errorf("paper's equations, %s: other generators %q, want none", r[0], r[len(r)-1])
		}
	}
}

// The authors'-code mode's as-run tables, against sources outside the code under test: the energy decay
// that paper/differences.md names (exp(−0.01·t), fitted), checked on every data set, beside the paper's
// λ energy of table_gen_params.tex; Schut's η 0.1 on images (CE.jl's GreedyGenerator default,
// src/generators/gradient_based/generators.jl:39; the paper's η 0.05); the JEMs' energies conditioned on
// the minibatch's first label (JointEnergyModels.jl v0.1.3 src/model.jl:65,77) and their ensemble's
// members on MLJEnsembles' 80 % bags (bagging_fraction 0.8); the authors' own models for the tabular and
// synthetic sets, where ECCCo.jl's models/ folder holds them, and eccco's for the images, whose files it
// does not.
func TestParameterTablesAsRunAuthorsCode(t *testing.T) {
	diff, err := os.ReadFile(filepath.Join("..", "..", "paper", "differences.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`ECCCo's energy decaying as exp\(−([0-9.]+)·t\)`).FindSubmatch(diff)
	if m == nil {
		t.Fatal("paper/differences.md names no decay of ECCCo's energy")
	}
	rate := string(m[1])
	if rate != strconv.FormatFloat(experiment.AuthorsDecayRate, 'g', -1, 64) {
		t.Errorf("paper/differences.md names the decay exp(−%s·t), experiment.AuthorsDecayRate is %v", rate, experiment.AuthorsDecayRate)
	}
	pts, err := ParameterTablesAsRun(experiment.AuthorsCode, nil)
	if err != nil {
		t.Fatal(err)
	}
	ebm, gen := pts[0].Markdown, pts[1].Markdown
	for _, want := range []string{
		"| german-credit | 0.05 | 0.1 | 0.1 | 0.1, decayed to 0.1·exp(−" + rate + "·t) at step t (paper 0.1, not decayed) | 0.5 | none |",
		"| mnist | 0.05 | 0.01 | 0.1 | 0.3, decayed to 0.3·exp(−" + rate + "·t) at step t (paper 0.3, not decayed) | 0 | Schut: η 0.1 (paper 0.05) |",
		"| fashion-mnist | 0.05 | 0.01 | 0.1 | 0.3, decayed to 0.3·exp(−" + rate + "·t) at step t (paper 0.3, not decayed) | 0 | Schut: η 0.1 (paper 0.05) |",
	} {
		if !strings.Contains(gen, want) {
			t.Errorf("generator table lacks\n%s\nin\n%s", want, gen)
		}
	}
	for _, want := range []string{
		"| german-credit | 30 | 10 | 0.1 | the minibatch's first label (paper each row's label) | 80 % bags (paper all rows) | authors' |",
		"| mnist | 25 | 10 | 0.01 | the minibatch's first label (paper each row's label) | 80 % bags (paper all rows) | eccco's |",
	} {
		if !strings.Contains(ebm, want) {
			t.Errorf("JEM table lacks\n%s\nin\n%s", want, ebm)
		}
	}
	if !strings.Contains(pts[1].Caption, "ECCCo, ECCCo+, ECCCo (no CP)") {
		t.Errorf("the caption does not name the generators the decay applies to: %s", pts[1].Caption)
	}
	// Every data set's energy weight is decayed, beside the paper's λ energy (λ3) where the sources are here.
	_, rows := mdTable(gen)
	if len(rows) != 8 {
		t.Fatalf("%d rows, want 8", len(rows))
	}
	for _, r := range rows {
		if !strings.Contains(r[4], "exp(−"+rate+"·t)") {
			t.Errorf("%s: λ energy %q is not decayed", r[0], r[4])
		}
	}
	// The data sets named, only.
	one, err := ParameterTablesAsRun(experiment.AuthorsCode, []string{"mnist"})
	if err != nil {
		t.Fatal(err)
	}
	if _, rows := mdTable(one[1].Markdown); len(rows) != 1 || rows[0][0] != "mnist" {
		t.Errorf("MNIST only: %q", rows)
	}
	if _, err := ParameterTablesAsRun("no-such-mode", nil); err == nil {
		t.Error("an unknown mode is accepted")
	}
	// Last: it skips the test where the paper's sources are absent.
	tex := paperTable(t, "table_gen_params.tex")
	for _, r := range rows {
		if want := "(paper " + strconv.FormatFloat(tex[r[0]][3], 'g', -1, 64) + ", not decayed)"; !strings.HasSuffix(r[4], want) {
			t.Errorf("%s: λ energy %q, want the paper's %s", r[0], r[4], want)
		}
	}
}

// The report's section on models and generators shows the JEM and generator tables as the main result
// set's mode ran them, each before the paper's-settings table, whose caption says which mode uses it.
func TestReportShowsParametersAsRun(t *testing.T) {
	in := tiny()
	in.Results.Mode = string(experiment.AuthorsCode)
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	gen := findTable(t, d, "tab:params-generators-as-run")
	if len(gen.Rows) != 1 || gen.Rows[0].Cells[0].Text != "Moons" || !strings.Contains(gen.Rows[0].Cells[4].Text, "decayed to 0.2·exp(−0.01·t)") {
		t.Errorf("as-run generator table: %+v", gen.Rows)
	}
	findTable(t, d, "tab:params-ebm-as-run")
	var labels []string
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if tb, ok := b.(*Table); ok && strings.HasPrefix(tb.Label, "tab:params-") {
				labels = append(labels, tb.Label)
			}
		}
	}
	want := []string{"tab:params-models-as-run", "tab:params-models", "tab:params-ebm-as-run", "tab:params-ebm", "tab:params-generators-as-run", "tab:params-generators"}
	if !slices.Equal(labels, want) {
		t.Errorf("parameter tables %q, want %q", labels, want)
	}
	if c := findTable(t, d, "tab:params-generators").Caption.Text(); !strings.Contains(c, "with which the paper's-equations mode runs every generator") {
		t.Errorf("the paper's generator table's caption: %s", c)
	}
}

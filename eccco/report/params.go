package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// ParameterTable is one of the paper's parameter tables, rendered from the values the code uses.
type ParameterTable struct {
	// Name is the file stem: params-models, params-ebm or params-generators.
	Name, Caption   string
	Markdown, LaTeX string
}

// generatorColumnsNote says how the generator tables' columns map to the paper's λ1, λ2 and λ3.
const generatorColumnsNote = "The paper's table heads its columns λ1, λ2, λ3 but lists them in the code's order, cost, set size, energy: its λ2 is the set-size weight and its λ3 the energy weight, the reverse of Eq. 5's λ2 (energy) and λ3 (Ω); the columns here are named by what they weigh."

// ParameterTables renders the paper's three parameter tables from the values the code uses:
// params-models (table_params.tex: architecture and training), params-ebm (table_ebm_params.tex: JEM
// training) and params-generators (table_gen_params.tex).
func ParameterTables() ([]ParameterTable, error) {
	type table struct {
		name, caption string
		header        []string
		rows          [][]string
	}
	var tm, te, tg table
	tm = table{name: "params-models", caption: "Model and training parameters (table\\_params.tex).",
		header: []string{"Dataset", "Hidden units", "Layers", "Activation", "Ensemble size", "Epochs", "Batch size"}}
	te = table{name: "params-ebm", caption: "JEM parameters (table\\_ebm\\_params.tex).",
		header: []string{"Dataset", "SGLD steps", "Samples per batch", "λ"}}
	tg = table{name: "params-generators", caption: "Generator parameters (table\\_gen\\_params.tex). " + generatorColumnsNote,
		header: []string{"Dataset", "η", "λ cost", "λ set size", "λ energy", "Ridge"}}
	for _, name := range data.Names() {
		row, err := catalogue.LookupDataset(name)
		if err != nil {
			return nil, err
		}
		s, j, p := row.Model, row.JEM, row.GeneratorParams()
		tm.rows = append(tm.rows, []string{name, fmt.Sprint(s.Hidden), fmt.Sprint(s.Layers), s.Activation, fmt.Sprint(s.EnsembleSize), fmt.Sprint(s.Epochs), fmt.Sprint(s.BatchSize)})
		te.rows = append(te.rows, []string{name, fmt.Sprint(j.SGLDSteps), fmt.Sprint(j.Samples), fmt.Sprint(j.Lambda)})
		tg.rows = append(tg.rows, []string{name, fmt.Sprint(p.StepSize), fmt.Sprint(p.Cost), fmt.Sprint(p.SetSize), fmt.Sprint(p.Energy), fmt.Sprint(p.Ridge)})
	}
	var out []ParameterTable
	for _, t := range []table{tm, te, tg} {
		var md, tex strings.Builder
		md.WriteString("| " + strings.Join(t.header, " | ") + " |\n|" + strings.Repeat("---|", len(t.header)) + "\n")
		tex.WriteString("\\begin{table}\n\\caption{" + t.caption + "}\n\\centering\n\\begin{tabular}{l" + strings.Repeat("r", len(t.header)-1) + "}\n\\toprule\n")
		tex.WriteString(strings.ReplaceAll(strings.ReplaceAll(strings.Join(t.header, " & "), "λ", "$\\lambda$"), "η", "$\\eta$") + "\\\\\n\\midrule\n")
		for _, r := range t.rows {
			md.WriteString("| " + strings.Join(r, " | ") + " |\n")
			tex.WriteString(strings.Join(r, " & ") + "\\\\\n")
		}
		tex.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
		out = append(out, ParameterTable{Name: t.name, Caption: t.caption, Markdown: md.String(), LaTeX: tex.String()})
	}
	return out, nil
}

// WriteParameterTables writes ParameterTables as Markdown and LaTeX into dir (NAME.md, NAME.tex).
func WriteParameterTables(dir string) error {
	tables, err := ParameterTables()
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := atomicfile.WriteFile(filepath.Join(dir, t.Name+".md"), []byte(t.Markdown), 0o644); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, t.Name+".tex"), []byte(t.LaTeX), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ModelParametersAsRun is the paper's model-parameter table (table_params.tex) as a result set was made:
// per data set the architecture the mode builds (experiment.Settings.Spec: on images in the
// authors'-code mode the authors' 128 swish units in one layer), the training rows and epochs the
// models were made with (perf: the model-performance table of the same models; epochs 0 are the
// authors' own trained models, loaded, not trained), and the paper's value beside each that differs.
// The paper's "Sample Size" column is given as printed, beside the training rows as run.
func ModelParametersAsRun(perf []Perf, mode experiment.Mode) (ParameterTable, error) {
	header := []string{"Dataset", "Paper's sample", "Train rows", "Hidden", "Layers", "Activation", "Ensemble", "Epochs", "Batch"}
	var md strings.Builder
	md.WriteString("| " + strings.Join(header, " | ") + " |\n|" + strings.Repeat("---|", len(header)) + "\n")
	for _, name := range data.Names() {
		var rows, epochs []int
		for _, p := range perf {
			if p.Dataset == name {
				rows, epochs = append(rows, p.TrainRows), append(epochs, p.Epochs)
			}
		}
		if len(rows) == 0 {
			continue
		}
		row, err := catalogue.LookupDataset(name)
		if err != nil {
			return ParameterTable{}, err
		}
		p := row.Model
		info, err := data.Lookup(name)
		if err != nil {
			return ParameterTable{}, err
		}
		ms, err := mode.Settings(name)
		if err != nil {
			return ParameterTable{}, err
		}
		hidden, layers, act := p.Hidden, p.Layers, p.Activation
		if ms.VisionArchitecture && info.Kind == data.KindVision {
			hidden, layers, act = experiment.AuthorsVisionHidden, experiment.AuthorsVisionLayers, experiment.AuthorsVisionActivation
		}
		ep := "authors'"
		if slices.Max(epochs) > 0 {
			ep = differs(fmt.Sprint(slices.Max(epochs)), fmt.Sprint(p.Epochs))
		}
		train := fmt.Sprint(slices.Min(rows))
		if slices.Max(rows) != slices.Min(rows) {
			train += "–" + fmt.Sprint(slices.Max(rows))
		}
		r := []string{name, fmt.Sprint(paperSampleSize[name]), train, differs(fmt.Sprint(hidden), fmt.Sprint(p.Hidden)), differs(fmt.Sprint(layers), fmt.Sprint(p.Layers)),
			differs(act, p.Activation), fmt.Sprint(p.EnsembleSize), ep, fmt.Sprint(p.BatchSize)}
		md.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	return ParameterTable{Name: "params-models-as-run", Markdown: md.String(),
		Caption: "Model and training parameters as the " + modeWords(mode) + " results were made (table\\_params.tex's layout): the architecture the mode builds, the training rows and epochs of the models scored in Table 5, the paper's value in brackets where it differs; epochs \"authors'\" mark the authors' own trained models, loaded into this architecture (their arrays' shapes must match it) and not trained."}, nil
}

// paperSampleSize is the "Sample Size" column of the paper's table_params.tex.
var paperSampleSize = map[string]int{"linearly-separable": 1000, "moons": 2500, "circles": 1000, "california-housing": 16500,
	"gmsc": 13370, "german-credit": 800, "mnist": 10000, "fashion-mnist": 10000}

// modeWords names a mode in a caption: "authors'-code", "paper's-equations", or the mode's name.
func modeWords(mode experiment.Mode) string {
	switch {
	case mode.IsAuthorsCode():
		return "authors'-code"
	case mode.String() == string(experiment.Paper):
		return "paper's-equations"
	}
	return string(mode)
}

// differs is ours, followed by the paper's value in brackets where they differ.
func differs(ours, paper string) string {
	if ours == paper {
		return ours
	}
	return ours + " (paper " + paper + ")"
}

// ParameterTablesAsRun renders the paper's JEM and generator parameter tables (table_ebm_params.tex,
// table_gen_params.tex) as the mode runs them, per data set from its experiment.Mode.Settings, on the
// data sets named (all of data.Names where datasets is nil), in data.Names' order:
//
//   - params-ebm-as-run: the SGLD steps, samples per batch and λ of the data set's row
//     (catalogue.Dataset.JEM), the label on which the generative and regularisation terms of the JEM's
//     objective condition the energies (each row's own, or with experiment.Settings.JEMFirstLabel the
//     minibatch's first: energy.JEMOptions.FirstLabelEnergy), the rows each member of the JEM ensemble
//     trains on (experiment.Settings.Bagging) and whose JEMs are explained: the authors' own trained
//     models (experiment.Settings.AuthorsModels), loaded, or eccco's;
//   - params-generators-as-run: ECCCo's η and weights (experiment.Settings.GeneratorParams of the data
//     set's row, catalogue.Dataset.GeneratorParams), a decaying energy weight with its decay, and "Other
//     generators": every generator whose hyper-parameters, of those it reads (catalogue.Generator.Reads),
//     depart from ECCCo's, with their values; "none" where every generator runs with the row.
//
// Each value that differs from the paper's table (the settings' zero value: every switch off) has the
// paper's value beside it in brackets. Only the Markdown is rendered.
func ParameterTablesAsRun(mode experiment.Mode, datasets []string) ([]ParameterTable, error) {
	if err := mode.Validate(); err != nil {
		return nil, err
	}
	ebmHead := []string{"Dataset", "SGLD steps", "Samples per batch", "λ", "Energy terms conditioned on", "JEM ensemble members", "Models"}
	genHead := []string{"Dataset", "η", "λ cost", "λ set size", "λ energy", "Ridge", "Other generators"}
	var ebm, gen strings.Builder
	for _, t := range []struct {
		sb   *strings.Builder
		head []string
	}{{&ebm, ebmHead}, {&gen, genHead}} {
		t.sb.WriteString("| " + strings.Join(t.head, " | ") + " |\n|" + strings.Repeat("---|", len(t.head)) + "\n")
	}
	decayed := false
	for _, name := range data.Names() {
		if datasets != nil && !slices.Contains(datasets, name) {
			continue
		}
		row, err := catalogue.LookupDataset(name)
		if err != nil {
			return nil, err
		}
		set, err := mode.Settings(name)
		if err != nil {
			return nil, err
		}
		j := row.JEM
		members := "all rows"
		if set.Bagging > 0 {
			members = fmt.Sprintf("%g %% bags", 100*set.Bagging)
		}
		conditioned := "each row's label"
		if set.JEMFirstLabel {
			conditioned = "the minibatch's first label"
		}
		explained := "eccco's"
		if set.AuthorsModels {
			explained = "authors'"
		}
		r := []string{name, fmt.Sprint(j.SGLDSteps), fmt.Sprint(j.Samples), fmt.Sprint(j.Lambda),
			differs(conditioned, "each row's label"), differs(members, "all rows"), explained}
		ebm.WriteString("| " + strings.Join(r, " | ") + " |\n")

		paper := row.GeneratorParams()
		p := set.GeneratorParams(string(catalogue.ECCCo), paper)
		energy := differs(fmt.Sprint(p.Energy), fmt.Sprint(paper.Energy))
		if p.DecayRate > 0 {
			decayed = true
			energy = fmt.Sprintf("%v, decayed to %v·exp(−%v·t) at step t", p.Energy, p.Energy, p.DecayRate)
			if every := max(p.DecayEvery, 1); every > 1 {
				energy = fmt.Sprintf("%v, decayed to %v·exp(−%v·t) at every step t that is a multiple of %d", p.Energy, p.Energy, p.DecayRate, every)
			}
			energy += " (paper " + fmt.Sprint(paper.Energy) + ", not decayed)"
		}
		var others []string
		for _, g := range catalogue.Generators() {
			if g.Name == catalogue.ECCCo {
				continue
			}
			if d := departure(g, set.GeneratorParams(string(g.Name), paper), p, paper); d != "" {
				others = append(others, string(g.Name)+": "+d)
			}
		}
		other := "none"
		if len(others) > 0 {
			other = strings.Join(others, "; ")
		}
		r = []string{name, differs(fmt.Sprint(p.StepSize), fmt.Sprint(paper.StepSize)), differs(fmt.Sprint(p.Cost), fmt.Sprint(paper.Cost)),
			differs(fmt.Sprint(p.SetSize), fmt.Sprint(paper.SetSize)), energy, differs(fmt.Sprint(p.Ridge), fmt.Sprint(paper.Ridge)), other}
		gen.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	words := modeWords(mode)
	genCaption := "Generator parameters as the " + words + " results were made (table\\_gen\\_params.tex's layout, columns named by what they weigh; from the mode's settings): η and the weights ECCCo runs with, the paper's value in brackets where it differs. Other generators lists each generator whose hyper-parameters, of those it reads, depart from ECCCo's, with the paper's value in brackets where it differs; none where every generator runs with ECCCo's values."
	if decayed {
		var decaying []string
		for _, g := range catalogue.Generators() {
			if g.Reads("decay-rate") {
				decaying = append(decaying, string(g.Name))
			}
		}
		genCaption += " A decayed energy weight is given with its value at search step t (0, 1, …): ECCCo.jl's energy penalty decayed so (src/penalties.jl:74-82) at a rate its final runs do not record; the rate here is fitted (paper/differences.md). It applies to every generator with ECCCo's energy term (" + strings.Join(decaying, ", ") + "), not to the ECCCo-L1 family's distance to its samples."
	}
	return []ParameterTable{
		{Name: "params-ebm-as-run", Markdown: ebm.String(),
			Caption: "JEM parameters as the " + words + " results were made (table\\_ebm\\_params.tex's layout, from the mode's settings): the SGLD steps, samples per batch and λ of the JEMs' training, the label on which their objective's generative and regularisation terms condition the energies (the authors' code: the first label of each minibatch, JointEnergyModels.jl v0.1.3 src/model.jl:65,77) and the rows each member of the JEM ensemble trains on, the paper's value in brackets where it differs. Models \"authors'\" are the authors' own trained JEMs, loaded and not trained by eccco; \"eccco's\" are trained by eccco with these settings."},
		{Name: "params-generators-as-run", Markdown: gen.String(), Caption: genCaption},
	}, nil
}

// departure lists the hyper-parameters of q, the generator g's, that g reads (catalogue.Generator.Reads)
// and that differ from ECCCo's p, each with the paper's value of the data set's row paper beside it
// where that differs too: "η 0.1 (paper 0.05)". It is "" where g runs with ECCCo's values.
func departure(g catalogue.Generator, q, p, paper counterfactual.Params) string {
	var d []string
	for _, f := range []struct {
		key, name   string
		q, p, paper float64
	}{
		{"step", "η", q.StepSize, p.StepSize, paper.StepSize},
		{"cost", "λ cost", q.Cost, p.Cost, paper.Cost},
		{"setsize", "λ set size", q.SetSize, p.SetSize, paper.SetSize},
		{"energy", "λ energy", q.Energy, p.Energy, paper.Energy},
		{"ridge", "ridge", q.Ridge, p.Ridge, paper.Ridge},
	} {
		if g.Reads(f.key) && f.q != f.p {
			d = append(d, f.name+" "+differs(fmt.Sprint(f.q), fmt.Sprint(f.paper)))
		}
	}
	if g.Reads("decay-rate") && (q.DecayRate != p.DecayRate || (q.DecayRate > 0 && max(q.DecayEvery, 1) != max(p.DecayEvery, 1))) {
		decay := "not decayed"
		if q.DecayRate > 0 {
			decay = fmt.Sprintf("energy decayed by exp(−%v·t) every %d steps", q.DecayRate, max(q.DecayEvery, 1))
		}
		d = append(d, decay)
	}
	return strings.Join(d, ", ")
}

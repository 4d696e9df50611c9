package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
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
	tg = table{name: "params-generators", caption: "Generator parameters (table\\_gen\\_params.tex). The paper's table heads its columns λ1, λ2, λ3 but lists them in the code's order, cost, set size, energy: its λ2 is the set-size weight and its λ3 the energy weight, the reverse of Eq. 5's λ2 (energy) and λ3 (Ω); the columns here are named by what they weigh.",
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
	differs := func(ours, paper string) string {
		if ours == paper {
			return ours
		}
		return ours + " (paper " + paper + ")"
	}
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
	modeWords := map[experiment.Mode]string{experiment.AuthorsCode: "authors'-code", experiment.Paper: "paper's-equations"}[mode]
	if modeWords == "" {
		modeWords = string(mode)
	}
	return ParameterTable{Name: "params-models-as-run", Markdown: md.String(),
		Caption: "Model and training parameters as the " + modeWords + " results were made (table\\_params.tex's layout): the architecture the mode builds, the training rows and epochs of the models scored in Table 5, the paper's value in brackets where it differs; epochs \"authors'\" mark the authors' own trained models, loaded into this architecture (their arrays' shapes must match it) and not trained."}, nil
}

// paperSampleSize is the "Sample Size" column of the paper's table_params.tex.
var paperSampleSize = map[string]int{"linearly-separable": 1000, "moons": 2500, "circles": 1000, "california-housing": 16500,
	"gmsc": 13370, "german-credit": 800, "mnist": 10000, "fashion-mnist": 10000}

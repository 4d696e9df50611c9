package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/models"
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
	tg = table{name: "params-generators", caption: "Generator parameters (table\\_gen\\_params.tex; λ in the code's order).",
		header: []string{"Dataset", "η", "λ cost", "λ set size", "λ energy", "Ridge"}}
	for _, name := range data.Names() {
		s, err := models.PaperSettings(name)
		if err != nil {
			return nil, err
		}
		tm.rows = append(tm.rows, []string{name, fmt.Sprint(s.Hidden), fmt.Sprint(s.Layers), s.Activation, fmt.Sprint(s.EnsembleSize), fmt.Sprint(s.Epochs), fmt.Sprint(s.BatchSize)})
		j, err := energy.PaperJEMSettings(name)
		if err != nil {
			return nil, err
		}
		te.rows = append(te.rows, []string{name, fmt.Sprint(j.SGLDSteps), fmt.Sprint(j.Samples), fmt.Sprint(j.Lambda)})
		p, err := counterfactual.PaperParams(name)
		if err != nil {
			return nil, err
		}
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

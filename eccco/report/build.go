package report

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/figures"
	"github.com/eccco-go/eccco-go/eccco/internal/reportmark"
	"github.com/eccco-go/eccco-go/eccco/internal/stats"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Inputs is everything the report is built from. Only Results is required; what is missing is said in the
// document.
type Inputs struct {
	// Results are the main results (the authors'-code mode's, paper/results): every table and count.
	Results *Results
	// PaperMode are the results of the paper's equations (paper/results-paper-mode), on which the paper's
	// claims are checked too; nil for none.
	PaperMode *Results
	// ReplayOnly are the results of the authors'-code mode without its fitted switches
	// (experiment.FittedOff); nil for none.
	ReplayOnly *Results
	// SecondSeed are results of the same mode under another seed, on some of the data sets; nil for none.
	SecondSeed *Results
	// Performance is the model-performance table (Table 5); nil leaves the section saying so.
	Performance []Perf
	// Published is the paper's result tables (paper/published-results.csv); nil leaves out the comparison.
	Published []compare.Published
	// FiguresDir holds the figures as NAME.png (or NAME.pdf), as `eccco figures` writes them; "" for none.
	FiguresDir string
	// FigureNotes says per figure what matches the paper's (ReadFigureNotes: the gallery's README).
	FigureNotes map[string]Inline
	// FigureSettings are the settings each figure was drawn with (FigureSettings; "" key: the default).
	FigureSettings map[string]string
	// Stages are reproduce.sh's stage timings (ReadStages); nil when none were given.
	Stages []Stage
	// Unavailable are the data sets not available where the report was built (data.Present); the
	// provenance names them, and the figures and results they leave out say so.
	Unavailable []string
	// Banner labels a document that does not follow the paper's protocol (QuickBanner); "" for the full one.
	Banner     string
	Provenance Provenance
	// forKey builds the document whose hash is the content key (withoutBuild): without the benchmarks'
	// wall times.
	forKey bool
}

// Provenance says where the report and its results come from.
type Provenance struct {
	Commit  string // the checkout's commit ("" when unknown)
	Dirty   bool   // tracked files differ from Commit
	Backend string // the GoMLX backend configured where the report was built
	Machine Machine
	// Profile names how the results were made, e.g. "full protocol" or "quick profile (reproduce.sh --quick)".
	Profile string
	// Sources are the input paths as given (results, performance, figures, stage timings, …) in order.
	Sources [][2]string
}

// QuickBanner labels a quick-profile report with the epochs of the models it trained (the largest in the
// model-performance table; none given: without them). The authors' own models (epochs 0 in the table) are
// not quick ones, so the label says "trained".
func QuickBanner(perf []Perf) string {
	epochs := 0
	for _, p := range perf {
		epochs = max(epochs, p.Epochs)
	}
	if epochs == 0 {
		return "QUICK PROFILE — not the paper's protocol"
	}
	return fmt.Sprintf("QUICK PROFILE — %d-epoch models trained, not the paper's protocol", epochs)
}

// figure places: the paper's figures by section of this report.
var (
	methodFigures   = []string{"fig1-motiv", "fig2-poc", "poc-gen", "cp-diff", "mnist-gen"}
	resultFigures   = []string{"fig3-mnist-bmk"}
	appendixFigures = []string{"mnist-eccco-lenet", "mnist-eccco-mlp", "mnist-eccco-mlp-ens", "mnist-eccco-jem", "mnist-eccco-jem-ens",
		"mnist-revise-lenet", "mnist-revise-mlp", "mnist-revise-mlp-ens", "mnist-revise-jem", "mnist-revise-jem-ens", "vae-rec"}
)

// figureWidth is the printed width of each figure (fraction of the text width).
var figureWidth = map[string]float64{"fig1-motiv": 0.55, "fig3-mnist-bmk": 0.8, "poc-gen": 0.5, "mnist-gen": 0.55, "vae-rec": 0.7, "fig2-poc": 0.9, "fig2-poc-authors": 0.9, "cp-diff": 0.9}

// gridWidth is the width of the appendix's 10 × 10 MNIST grids: two to a page.
const gridWidth = 0.42

func datasetTitle(name string) string {
	if info, err := data.Lookup(name); err == nil {
		return info.Title
	}
	return name
}

func datasetOrder(name string) int {
	if i := slices.Index(data.Names(), name); i >= 0 {
		return i
	}
	return 100
}

// ourDatasets lists the data sets of the cells in the paper's order.
func ourDatasets(cells []compare.Cell) []string {
	var ds []string
	for _, c := range cells {
		if !slices.Contains(ds, c.Dataset) {
			ds = append(ds, c.Dataset)
		}
	}
	sort.SliceStable(ds, func(i, j int) bool { return datasetOrder(ds[i]) < datasetOrder(ds[j]) })
	return ds
}

func joinWords(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// recordedCommit is the commit a results directory's provenance line names (revisionText), with what it
// says of the checkout: "commit d4ca7e0bceb9 (the checkout's HEAD, with uncommitted changes)".
var recordedCommit = regexp.MustCompile(`commit [0-9a-f]{7,40}( \((the checkout's HEAD|with uncommitted changes)[^)]*\))?|unknown commit`)

// StagesSource names reproduce.sh's stage timings among Provenance.Sources.
const StagesSource = "stage timings"

// Build assembles the report from its inputs, with its content key: that of the same report built
// without what names its build (Inputs.withoutBuild), and of its figure files.
func Build(in Inputs) (*Document, error) {
	d, err := build(in)
	if err != nil {
		return nil, err
	}
	canon, err := build(in.withoutBuild())
	if err != nil {
		return nil, err
	}
	parts := [][]byte{[]byte(canon.LaTeX())}
	for _, f := range canon.figureFiles() {
		raw, err := canon.figureBytes(f)
		if err != nil {
			return nil, err
		}
		parts = append(parts, []byte(f), raw)
	}
	d.ContentKey = reportmark.Key(parts...)
	return d, nil
}

// withoutBuild is in without what names or measures the runs that made the report rather than its
// content: the commit, backend and machine (its Go included) that build it, reproduce.sh's stage
// timings with their input row, the benchmarks' wall times (timings.md) and the commit that recorded
// the results. A fresh clone's run whose results come back bit for bit as committed builds the committed
// report's content.
func (in Inputs) withoutBuild() Inputs {
	in.forKey = true
	res := *in.Results
	res.Recorded = recordedCommit.ReplaceAllString(res.Recorded, "commit")
	in.Results = &res
	in.Stages = nil
	pv := in.Provenance
	pv.Commit, pv.Dirty, pv.Backend, pv.Machine = "", false, "", Machine{}
	pv.Sources = slices.DeleteFunc(slices.Clone(pv.Sources), func(s [2]string) bool { return s[0] == StagesSource })
	in.Provenance = pv
	return in
}

func build(in Inputs) (*Document, error) {
	if in.Results == nil || len(in.Results.Cells) == 0 {
		return nil, fmt.Errorf("%w: the report needs the cells of a benchmark", ErrNoResults)
	}
	d := &Document{
		Title:    "Faithful Model Explanations through Energy-Constrained Conformal Counterfactuals: a reproduction in Go",
		Subtitle: "Results of eccco-go set beside the published numbers of Altmeyer, Farmanbar, van Deursen and Liem (AAAI-24)",
		Banner:   in.Banner,
		Header:   "eccco-go: ECCCo (AAAI-24) reproduced",
		Figures:  map[string]string{},
	}
	b := &builder{in: in, d: d, specs: map[string]figures.Spec{}}
	for _, s := range figures.Catalog() {
		b.specs[s.Name] = s
	}
	if in.Published != nil {
		cmp := compare.CompareWithBounds(in.Results.Cells, in.Published, in.Results.Bounds)
		b.cmp = &cmp
	}
	if err := b.claims(); err != nil { // before the abstract, which sums up its verdicts
		return nil, err
	}
	b.abstract()
	b.introduction()
	b.method()
	if err := b.setup(); err != nil {
		return nil, err
	}
	if err := b.experiments(); err != nil {
		return nil, err
	}
	if err := b.easyHard(); err != nil {
		return nil, err
	}
	if err := b.conclusion(); err != nil {
		return nil, err
	}
	if err := b.appendix(); err != nil {
		return nil, err
	}
	return d, nil
}

type builder struct {
	in    Inputs
	d     *Document
	cmp   *compare.Comparison
	specs map[string]figures.Spec
	// missing lists figures of the paper that the figures directory lacks; stale those it holds whose data
	// set is not available here.
	missing, stale []string
	// findings are the paper's claims tested (claims), for the abstract and the conclusion.
	findings *compare.Findings
}

func (b *builder) datasetsText() string {
	var ts []string
	for _, ds := range ourDatasets(b.in.Results.Cells) {
		ts = append(ts, datasetTitle(ds))
	}
	return joinWords(ts)
}

func (b *builder) within() (rounding, strict, n int) {
	if b.cmp == nil {
		return 0, 0, 0
	}
	rounding, strict = compare.WithinCounts(b.cmp.Rows)
	return rounding, strict, len(b.cmp.Rows)
}

func (b *builder) abstract() {
	cells := b.in.Results.Cells
	var gens, mods []string
	for _, c := range cells {
		if !slices.Contains(gens, c.Generator) {
			gens = append(gens, c.Generator)
		}
		if !slices.Contains(mods, c.Model) {
			mods = append(mods, c.Model)
		}
	}
	a := Inline{T(fmt.Sprintf("This report sets the counterfactual benchmark of eccco-go, a Go implementation of ECCCo on GoMLX, beside the numbers published in the paper. It covers %d data sets (%s), %d models and %d generators. ",
		len(ourDatasets(cells)), b.datasetsText(), len(mods), len(gens)))}
	if _, _, n := b.within(); n > 0 {
		a = append(a, T(fmt.Sprintf("Of the %d table cells that have a published counterpart, %s. ", n, WithinText(b.cmp.Counts()))))
		a = append(a, T(fmt.Sprintf("But %s. ", DiscriminatingText(b.cmp.Counts().All))))
		if ro := b.in.ReplayOnly; ro != nil && b.in.Published != nil {
			without := compare.CompareWithBounds(ro.Cells, b.in.Published, ro.Bounds).Counts()
			kept := ""
			if k := b.replayNotRerun(); len(k) > 0 {
				kept = fmt.Sprintf(" (%s not rerun: their cells are the ones with the fitted switches)", joinWords(k))
			}
			a = append(a, T(fmt.Sprintf("With the authors'-code mode's fitted switches off (replay only; the section on the mode's switches gives each one's provenance)%s: %s. ", kept, WithinText(without))))
		}
		if r, pairs := b.cmp.MedianRho("unfaithfulness"); pairs > 0 {
			a = append(a, T(fmt.Sprintf("The generators' ranking by unfaithfulness agrees with the paper's with a median Spearman ρ of %s over %d data set × model pairs. ", rho(r), pairs)))
		}
	}
	if b.findings != nil {
		data := map[string]any{"Claims": len(b.findings.Claims), "Modes": b.modeVerdicts()}
		if i := len(b.findings.Sources) - 1; b.in.Published != nil && i >= 0 {
			data["Published"] = verdictsOf(*b.findings, i, b.findings.Sources[i])
		}
		data["PaperModeWithin"], data["AuthorsWithin"] = b.paperModeWithin()
		if blocks, err := prose("abstractclaims", data); err == nil {
			for _, bl := range blocks {
				if p, ok := bl.(*Para); ok {
					a = append(a, p.Text...)
					a = append(a, T(" "))
				}
			}
		}
	}
	if b.in.Banner != "" {
		a = append(a, B("These results come from the quick profile: small models and a small benchmark that exercise the pipeline; they are not the paper's protocol and are not meant to match its numbers."))
	}
	b.d.Abstract = a
}

func (b *builder) introduction() {
	s := b.d.add(&Section{Title: "Introduction", Label: "intro", Level: 1})
	s.para(T("Counterfactual explanations say how an input would have to change for a model to predict a different class. The paper argues that such an explanation should be "),
		I("faithful"), T(" to the model — it should lie where the model itself believes the target class lives — before it is "), I("plausible"),
		T(" to a human, and proposes ECCCo (Energy-Constrained Conformal Counterfactuals): a search objective that asks counterfactuals to have low energy under the model's own generative view of the data and a small conformal prediction set, with no surrogate model."))
	s.para(T("eccco-go re-implements the paper's models, generators, metrics and benchmark in Go. After the claims above, this document follows the paper: the method with its figures, the data, models, hyper-parameters, protocol and compute, the experiments (the model performance, the comparison's counts, and per data set a paragraph and the table of valid counterfactuals, as the paper's main text shows them), what was easy and what was hard to reproduce, and a conclusion. The appendix holds the tables of all counterfactuals, what still differs from the paper and why, further figures and the provenance of every number."))
	s.para(T("How to read the tables: our tables and figures are numbered R1, R2, … so that they do not collide with the paper's; each generator has two lines, ours first and the paper's below it in grey. A value in red with a dagger (†) lies outside the paper's mean ± max(3 sd, 0.015) — the published standard deviations are rounded to two decimals, so 0.015 is three times the largest rounding error; for the 20 cells that the paper's Table 2 prints to three decimals (MNIST's unfaithfulness and implausibility of valid counterfactuals) the floor is 0.0015, and the paper's line prints them so. Bold marks the best generator per model and metric, and one or two asterisks a generator more than one or two pooled standard deviations better than Wachter, as in the paper."))
}

// figure adds one of the paper's figures when the figures directory has it.
func (b *builder) figure(s *Section, name string) {
	spec, ok := b.specs[name]
	if !ok || b.in.FiguresDir == "" {
		return
	}
	// The LaTeX version embeds the vector PDF where there is one, the Markdown version the PNG.
	found := map[string]string{}
	for _, ext := range []string{".pdf", ".png"} {
		p := filepath.Join(b.in.FiguresDir, name+ext)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			found[ext] = p
		}
	}
	if len(found) == 0 {
		b.missing = append(b.missing, name)
		return
	}
	for _, d := range spec.Datasets {
		if slices.Contains(b.in.Unavailable, d) && !slices.Contains(b.stale, name) {
			b.stale = append(b.stale, name)
		}
	}
	file, mdFile := "", ""
	for _, ext := range []string{".pdf", ".png"} {
		if src, ok := found[ext]; ok {
			f := "figures/" + filepath.Base(src)
			b.d.Figures[f] = src
			if file == "" {
				file = f
			}
			if ext == ".png" && file != f {
				mdFile = f
			}
		}
	}
	caption := Inline{T(spec.Caption)}
	if note, ok := b.in.FigureNotes[name]; ok {
		caption = append(caption, T(" "), B("Ours:"), T(" "))
		caption = append(caption, note...)
	} else if cs, err := figures.ReadCriteria(b.in.FiguresDir, name); err == nil && len(cs) > 0 {
		// No note describes these images (a run's own figures, not the gallery): the criteria the figures
		// pass measured on them, as it wrote them beside the images.
		var parts []string
		for _, c := range cs {
			parts = append(parts, c.String())
		}
		caption = append(caption, T(" "), B("Measured on these images:"), T(" "+strings.Join(parts, "; ")+"."))
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		// A criteria file that is there but unreadable is said, not passed over.
		caption = append(caption, T(" "), B("Measured on these images:"), T(" not shown, because "+err.Error()+"."))
	}
	if st, ok := b.in.FigureSettings[name]; ok || b.in.FigureSettings[""] != "" {
		if !ok {
			st = b.in.FigureSettings[""]
		}
		caption = append(caption, T(" "), B("Drawn with:"), T(" eccco figures, "+st+"."))
	}
	w := figureWidth[name]
	if strings.HasPrefix(name, "mnist-eccco-") || strings.HasPrefix(name, "mnist-revise-") {
		w = gridWidth
	}
	if w == 0 {
		w = 0.75
	}
	f := &Figure{Name: name, File: file, MarkdownFile: mdFile, Label: spec.Label, Caption: caption, Width: w}
	if src, ok := found[".pdf"]; ok {
		f.PrintWidth = pdfWidth(src)
	}
	s.add(f)
}

func (b *builder) method() {
	s := b.d.add(&Section{Title: "Method", Label: "meth", Level: 1})
	s.para(T("The paper's motivating example (Figure 1 there) turns a nine into a seven: Wachter's counterfactual is valid but is the factual plus noise, and REVISE's looks like a seven because its variational autoencoder, not the classifier, knows what sevens look like. Neither says much about what the model has learned."))
	b.figure(s, "fig1-motiv")
	s.para(T("ECCCo searches a counterfactual x′ = f(z′) for the target class y⁺ of a factual x by minimising, besides the usual classification loss and distance, the model's energy of x′ given y⁺ and the smooth size of its conformal prediction set:"))
	s.add(&Math{TeX: `\min_{\mathbf{z}'} \; \mathrm{yloss}(M_\theta(f(\mathbf{z}')), \mathbf{y}^+) + \lambda_1\,\mathrm{dist}(f(\mathbf{z}'), \mathbf{x}) + \lambda_2\,\mathcal{E}_\theta(f(\mathbf{z}') \mid \mathbf{y}^+) + \lambda_3\,\Omega(C_\theta(f(\mathbf{z}'); \alpha))`, Label: "eq:eccco"})
	s.para(T("The energy term pulls the counterfactual towards the samples that the model itself generates for the target class by stochastic gradient Langevin dynamics (SGLD); the set-size term Ω towards regions where the model is certain. Unfaithfulness is measured as the distance of a counterfactual to those model samples, implausibility as its distance to the training data of the target class. The figures below are ours, drawn by eccco-go with the paper's captions and labels."))
	b.figure(s, "fig2-poc")
	if b.hasFigure("fig2-poc-authors") {
		s.para(T("The paper draws its Figure 2 in its own equations, where the conformal set size of a two-class model is 0 everywhere, so ECCCo (no EBM) cannot differ from Wachter there. The same figure in the authors'-code mode, on their trained JEM, where the set size does vary:"))
		b.figure(s, "fig2-poc-authors")
	}
	s.para(T("The ingredients, as in the paper's appendix: conditional SGLD samples of a joint energy model (JEM), and the conformal set size with its smooth, differentiable surrogate."))
	for _, name := range methodFigures[2:] {
		b.figure(s, name)
	}
}

func (b *builder) experiments() error {
	s := b.d.add(&Section{Title: "Experiments", Label: "emp", Level: 1})
	s.para(T("The model performance first (the paper's Table 5), then the comparison's counts over every published cell, then each data set with a paragraph on what matches and the table of valid counterfactuals."))
	cells := b.in.Results.Cells

	p := b.d.add(&Section{Title: "Model performance", Label: "emp:perf", Level: 2})
	b.performance(p)

	c := b.d.add(&Section{Title: "Ours against the published results", Label: "emp:cmp", Level: 2})
	if err := b.comparison(c); err != nil {
		return err
	}

	if b.in.SecondSeed != nil && b.in.Published != nil {
		b.secondSeed(b.d.add(&Section{Title: "What a second seed moves", Label: "emp:seed", Level: 2}))
	}

	r := b.d.add(&Section{Title: "Results per data set", Label: "emp:results", Level: 2})
	r.para(T("One table per data set, valid counterfactuals only (runs without any valid counterfactual left out), as the paper's main text shows its Tables 1 and 2; the tables of all counterfactuals, the paper's appendix tables, are in our appendix. Each paragraph counts the data set's cells of both subsets."))
	for _, ds := range ourDatasets(cells) {
		para, err := b.datasetParagraph(ds)
		if err != nil {
			return err
		}
		if para != nil {
			r.add(para)
		}
		if b.hasSubset(ds, "valid") {
			r.add(b.resultTable(ds, "valid"))
		} else {
			r.para(T("No valid-only cells for " + datasetTitle(ds) + "; its table of all counterfactuals is in the appendix."))
		}
	}
	if pm := b.in.PaperMode; pm != nil {
		p := b.d.add(&Section{Title: "Results under the paper's equations", Label: "emp:paper-mode", Level: 2})
		within, _ := b.paperModeWithin()
		p.para(T(fmt.Sprintf("The same tables for the results of the paper's own equations (%s), on the data sets they were run on: they reproduce %s of the published cells they cover. The section on the paper's claims tests each claim on them too.", b.modeName(pm), within)))
		for _, ds := range ourDatasets(pm.Cells) {
			p.add(b.resultTableOf(pm.Cells, ds, "valid", "the paper's equations")) // labelled tab:paper-mode-results-…
		}
	}
	v := b.d.add(&Section{Title: "Visual explanations", Label: "emp:vision", Level: 2})
	n := len(b.d.Figures)
	for _, name := range resultFigures {
		b.figure(v, name)
	}
	if len(b.d.Figures) == n {
		v.para(T("The figures directory holds no MNIST benchmark figure (Figure 3 of the paper)."))
	} else {
		v.para(T("Figure 3 of the paper compares the generators on one MNIST digit; ours is drawn with the figures' own models, whose settings its caption states."))
	}
	return nil
}

// hasSubset reports whether the results hold cells of a data set's subset.
func (b *builder) hasSubset(ds, subset string) bool {
	for _, c := range b.in.Results.Cells {
		if c.Dataset == ds && c.Subset == subset {
			return true
		}
	}
	return false
}

func (b *builder) performance(s *Section) {
	rows := b.in.Performance
	if rows == nil {
		s.para(T("No model-performance table was given (eccco report --perf FILE; `eccco perf` writes it)."))
		return
	}
	var below, above []string
	for _, r := range rows {
		if !r.HasPaper {
			continue
		}
		dlt := r.Accuracy - r.PaperAccuracy
		name := fmt.Sprintf("%s %s (%s)", datasetTitle(r.Dataset), compare.ModelTitle(r.Model), signed(dlt, 3))
		if dlt < -compare.PerformanceTolerance {
			below = append(below, name)
		}
		if dlt > compare.PerformanceTolerance {
			above = append(above, name)
		}
	}
	text := fmt.Sprintf("The table below sets our models' test accuracy, macro precision and macro F1 beside the paper's Table 5 (%d models). ", len(rows))
	if len(below) == 0 {
		text += fmt.Sprintf("No model is more than %.2f below the published accuracy. ", compare.PerformanceTolerance)
	} else {
		text += fmt.Sprintf("More than %.2f below the published accuracy (✗): %s. ", compare.PerformanceTolerance, joinWords(below))
	}
	if len(above) > 0 {
		text += fmt.Sprintf("More than %.2f above it: %s.", compare.PerformanceTolerance, joinWords(above))
	}
	s.para(T(strings.TrimSpace(text)))
	t := &Table{Caption: Inline{T("Test performance of the models (the paper's Table 5): ours, and the paper's in the column beside; Δ is our accuracy minus the paper's, ✗ where it is more than " +
		strconv.FormatFloat(compare.PerformanceTolerance, 'f', 2, 64) + " below.")}, Label: "tab:perf",
		Columns: []Column{{"Data set", "l"}, {"Model", "l"}, {"Accuracy", "r"}, {"paper", "r"}, {"Precision", "r"}, {"paper", "r"}, {"F1", "r"}, {"paper", "r"}, {"Δ accuracy", "r"}, {"Epochs", "r"}}}
	loaded := false
	rows = slices.Clone(rows)
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := datasetOrder(rows[i].Dataset), datasetOrder(rows[j].Dataset); a != b {
			return a < b
		}
		return modelIndex(compare.ModelTitle(rows[i].Model)) < modelIndex(compare.ModelTitle(rows[j].Model))
	})
	last := ""
	for _, r := range rows {
		ds := ""
		if r.Dataset != last {
			ds = datasetTitle(r.Dataset)
		}
		pa, pp, pf, dl := "–", "–", "–", "–"
		marked := false
		if r.HasPaper {
			pa, pp, pf = fmt.Sprintf("%.2f", r.PaperAccuracy), fmt.Sprintf("%.2f", r.PaperPrecision), fmt.Sprintf("%.2f", r.PaperF1)
			dlt := r.Accuracy - r.PaperAccuracy
			dl = signed(dlt, 3)
			if dlt < -compare.PerformanceTolerance {
				dl += " ✗"
				marked = true
			}
		}
		grey := func(s string) Cell { return Cell{Text: s, Paper: true} }
		epochs := strconv.Itoa(r.Epochs)
		if r.Epochs == 0 && r.TrainSeconds == 0 {
			epochs, loaded = "authors'", true
		}
		t.Rows = append(t.Rows, Row{Rule: r.Dataset != last, Cells: []Cell{{Text: ds}, {Text: compare.ModelTitle(r.Model)},
			{Text: fmt.Sprintf("%.3f", r.Accuracy)}, grey(pa), {Text: fmt.Sprintf("%.3f", r.Precision)}, grey(pp),
			{Text: fmt.Sprintf("%.3f", r.F1)}, grey(pf), {Text: dl, Bold: marked}, {Text: epochs}}})
		last = r.Dataset
	}
	if loaded {
		t.Caption = append(t.Caption, T(" Epochs: the epochs eccco trained the model for; \"authors'\" where the model is the authors' published one, loaded and not trained."))
	}
	s.add(t)
}

func (b *builder) comparison(s *Section) error {
	if b.cmp == nil {
		s.para(T("The published numbers were not found (paper/published-results.csv), so no cell is compared."))
		return nil
	}
	cmp := b.cmp
	rounding, strict, n := b.within()
	if n == 0 {
		s.para(T("No cell of these results has a published counterpart (data sets, models or generators that are not in the paper's tables)."))
		return nil
	}
	s.para(T(fmt.Sprintf("Of the %d cells (data set × subset × model × generator × metric) that have a published counterpart, %s (strict: with the published sd as printed; fixed by construction: %s). %s; %s. ",
		n, WithinText(cmp.Counts()), compare.ByConstructionRule, MissesText(cmp.Counts().All), SignificanceText(cmp.Counts().All))), T("In symbols, with the mean and sd of the run means on each side and n the runs (ours as run; the paper's 50, 10 for the image sets):"))
	s.add(&Math{TeX: `\lvert \mathrm{mean}_{\mathrm{ours}} - \mathrm{mean}_{\mathrm{paper}} \rvert \le \max(3\,\mathrm{sd}_{\mathrm{paper}},\ 3h), \qquad z = \frac{\mathrm{mean}_{\mathrm{ours}} - \mathrm{mean}_{\mathrm{paper}}}{\sqrt{\mathrm{sd}_{\mathrm{ours}}^2/n_{\mathrm{ours}} + \max(\mathrm{sd}_{\mathrm{paper}},\ h)^2/n_{\mathrm{paper}}}}`, Label: "eq:tolerance"})
	s.para(T("Here h is half the last decimal the paper printed the cell with: the appendix tables print two decimals, so an sd printed as 0.00 may be up to h = 0.005 (floors 0.015 and 0.005); Table 2 prints MNIST's unfaithfulness and implausibility of valid counterfactuals (MLP and LeNet-5; ECCCo, ECCCo+, REVISE, Schut, Wachter) to three, and those 20 cells are compared at three, with h = 0.0005 (floors 0.0015 and 0.0005)."))
	s.para(T(fmt.Sprintf("A tolerance that wide cannot always tell one generator from another. Following the rule that %s: %s.", compare.DiscriminatingRule, DiscriminatingText(cmp.Counts().All))))
	// Per metric and per data set.
	type group = compare.WithinGroup
	tally := func(key func(compare.ComparedCell) string) []group { return compare.WithinBy(cmp.Rows, key) }
	metricGroups := tally(func(r compare.ComparedCell) string { return r.Metric })
	sort.SliceStable(metricGroups, func(i, j int) bool {
		return compare.MetricIndex(metricGroups[i].Name) < compare.MetricIndex(metricGroups[j].Name)
	})
	dsGroups := tally(func(r compare.ComparedCell) string { return r.Dataset })
	sort.SliceStable(dsGroups, func(i, j int) bool { return datasetOrder(dsGroups[i].Name) < datasetOrder(dsGroups[j].Name) })
	best := func(gs []group, name func(string) string) string {
		g := slices.MaxFunc(gs, func(a, b group) int { return a.Rounding*b.Cells - b.Rounding*a.Cells })
		w := slices.MinFunc(gs, func(a, b group) int { return a.Rounding*b.Cells - b.Rounding*a.Cells })
		return fmt.Sprintf("%s (%s) to %s (%s)", name(w.Name), pct(w.Rounding, w.Cells), name(g.Name), pct(g.Rounding, g.Cells))
	}
	s.para(T("By metric the rounding-aware share ranges from " + best(metricGroups, func(s string) string { return s }) + "; by data set from " + best(dsGroups, datasetTitle) + "."))
	shareTable := func(title, label, caption string, gs []group, name func(string) string) *Table {
		t := &Table{Caption: Inline{T(caption)}, Label: label,
			Columns: []Column{{title, "l"}, {"Cells", "r"}, {"Strict (3 sd)", "r"}, {"Rounding-aware", "r"}}}
		for _, g := range gs {
			t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: name(g.Name)}, {Text: strconv.Itoa(g.Cells)}, {Text: share(g.Strict, g.Cells)}, {Text: share(g.Rounding, g.Cells)}}})
		}
		t.Rows = append(t.Rows, Row{Rule: true, Cells: []Cell{{Text: "all", Bold: true}, {Text: strconv.Itoa(n)}, {Text: share(strict, n)}, {Text: share(rounding, n)}}})
		return t
	}
	s.add(shareTable("Metric", "tab:within-metric", "Cells within the published numbers, per metric: strictly (mean ± 3 sd) and rounding-aware (mean ± max(3 sd, 3h), h half the last printed decimal).", metricGroups, func(s string) string { return s }))
	s.add(shareTable("Data set", "tab:within-dataset", "Cells within the published numbers, per data set.", dsGroups, datasetTitle))
	if err := b.comparisonFigures(s); err != nil {
		return err
	}

	// Rank agreement.
	var ms []string
	for _, r := range cmp.Ranks {
		if !slices.Contains(ms, r.Metric) {
			ms = append(ms, r.Metric)
		}
	}
	sort.SliceStable(ms, func(i, j int) bool { return compare.MetricIndex(ms[i]) < compare.MetricIndex(ms[j]) })
	s.para(T("Whether the generators come out in the paper's order matters more than whether each number matches: Spearman's ρ between our ranking of the generators and the paper's, per data set × model × metric (all counterfactuals, the generators both have, ties at average ranks), summarised by its median over the pairs where it is defined."))
	rt := &Table{Caption: Inline{T("Rank agreement of the generators with the paper's: median Spearman ρ per metric over the data set × model pairs where ρ is defined.")}, Label: "tab:spearman",
		Columns: []Column{{"Metric", "l"}, {"Pairs with ρ", "r"}, {"Median ρ", "r"}}}
	for _, m := range ms {
		r, pairs := cmp.MedianRho(m)
		rt.Rows = append(rt.Rows, Row{Cells: []Cell{{Text: m}, {Text: strconv.Itoa(pairs)}, {Text: rho(r)}}})
	}
	s.add(rt)
	// Which data sets the unfaithfulness ranking agrees on least and most (the median over their models).
	byDS := map[string][]float64{}
	for _, r := range cmp.Ranks {
		if r.Metric == "unfaithfulness" && !math.IsNaN(r.Rho) {
			byDS[r.Dataset] = append(byDS[r.Dataset], r.Rho)
		}
	}
	if len(byDS) > 1 {
		var dss []string
		for d := range byDS {
			dss = append(dss, d)
		}
		med := func(d string) float64 { return stats.Median(byDS[d]) }
		sort.SliceStable(dss, func(i, j int) bool {
			if a, b := med(dss[i]), med(dss[j]); a != b {
				return a < b
			}
			return datasetOrder(dss[i]) < datasetOrder(dss[j])
		})
		lo, hi := dss[0], dss[len(dss)-1]
		s.para(T(fmt.Sprintf("Per data set and model (the table below), the ranking by unfaithfulness agrees least on %s (median ρ over its models %s) and most on %s (%s); redundancy's low median comes from the many generators whose redundancy is 0, tied in either ranking.",
			datasetTitle(lo), rho(med(lo)), datasetTitle(hi), rho(med(hi)))))
	}
	pt := &Table{Caption: Inline{T("Spearman ρ per data set and model (– where undefined: fewer than three generators, one side all tied, or a published column no cell of which discriminates).")}, Label: "tab:spearman-pairs",
		Columns: []Column{{"Data set", "l"}, {"Model", "l"}}}
	for _, m := range ms {
		pt.Columns = append(pt.Columns, Column{m, "r"})
	}
	type pair struct{ d, m string }
	byPair := map[pair]map[string]float64{}
	var pairs []pair
	for _, r := range cmp.Ranks {
		p := pair{r.Dataset, r.Model}
		if byPair[p] == nil {
			byPair[p] = map[string]float64{}
			pairs = append(pairs, p)
		}
		byPair[p][r.Metric] = r.Rho
	}
	sort.SliceStable(pairs, func(i, j int) bool { return datasetOrder(pairs[i].d) < datasetOrder(pairs[j].d) })
	last := ""
	for _, p := range pairs {
		ds := ""
		if p.d != last {
			ds = datasetTitle(p.d)
		}
		row := Row{Rule: p.d != last, Cells: []Cell{{Text: ds}, {Text: p.m}}}
		for _, m := range ms {
			v, ok := byPair[p][m]
			if !ok {
				v = math.NaN()
			}
			row.Cells = append(row.Cells, Cell{Text: rho(v)})
		}
		pt.Rows = append(pt.Rows, row)
		last = p.d
	}
	s.add(pt)

	// Signs.
	counts := cmp.Counts()
	s.para(T(fmt.Sprintf("The paper's two central claims, as signs: ECCCo is more faithful than Wachter (ECCCo − Wachter unfaithfulness below zero) and REVISE more plausible than Wachter (REVISE − Wachter implausibility below zero). A difference the paper prints as 0.00 is a tie, with no sign to agree with. Over the data set × model pairs, the sign of ECCCo − Wachter: %s; that of REVISE − Wachter: %s.", SignText(counts.Unfaith), SignText(counts.Impl))))
	st := &Table{Caption: Inline{T("Signs of the paper's central differences, ours and the paper's (all counterfactuals); † where they disagree.")}, Label: "tab:signs",
		Columns: []Column{{"Data set", "l"}, {"Model", "l"}, {"ECCCo − Wachter unfaith.", "r"}, {"paper", "r"}, {"REVISE − Wachter implaus.", "r"}, {"paper", "r"}}}
	last = ""
	for _, sg := range cmp.Signs {
		ds := ""
		if sg.Dataset != last {
			ds = datasetTitle(sg.Dataset)
		}
		num := func(x float64, known bool, prec int) string {
			if !known {
				return "–"
			}
			return signed(x, prec)
		}
		st.Rows = append(st.Rows, Row{Rule: sg.Dataset != last, Cells: []Cell{{Text: ds}, {Text: sg.Model},
			{Text: num(sg.OursUnfaith, sg.UnfaithKnown, 3), Marked: sg.UnfaithKnown && !sg.UnfaithTie && !sg.UnfaithAgrees}, {Text: num(sg.PaperUnfaith, sg.UnfaithKnown, 2)},
			{Text: num(sg.OursImpl, sg.ImplKnown, 3), Marked: sg.ImplKnown && !sg.ImplTie && !sg.ImplAgrees}, {Text: num(sg.PaperImpl, sg.ImplKnown, 2)}}})
		last = sg.Dataset
	}
	s.add(st)
	if dis := Disagreements(*cmp); len(dis) > 0 {
		s.para(T("Where the signs disagree:"))
		l := &List{}
		for _, d := range dis {
			l.Items = append(l.Items, Inline{T(d)})
		}
		s.add(l)
	}
	b.spread(s)
	if causes := compare.MissCauses(cmp.Rows); len(causes) > 0 {
		misses := 0
		for _, c := range causes {
			misses += c.Cells
		}
		s.para(T(fmt.Sprintf("The %d cells outside the tolerance, by likely cause: chance (a difference of the two means that is not significant, Welch's |z| ≤ 3), our models' calibration (below), one of the known differences of the appendix \"What differs from the paper, and why\", or unexplained (the comparison report, comparison.md, names the cause of each cell).", misses)))
		ct := &Table{Caption: Inline{T("Cells outside max(3 sd, 3h), by likely cause.")}, Label: "tab:causes",
			Columns: []Column{{"Likely cause", "p{11cm}"}, {"Cells", "r"}, {"Share", "r"}}}
		for _, c := range causes {
			ct.Rows = append(ct.Rows, Row{Cells: []Cell{{Text: c.Cause}, {Text: fmt.Sprint(c.Cells)}, {Text: pct(c.Cells, misses)}}})
		}
		s.add(ct)
	}
	b.calibration(s)
	return nil
}

// spread compares the spread of our run means with the published one, per metric (compare.SpreadRows).
func (b *builder) spread(s *Section) {
	rows := b.cmp.SpreadRows()
	if len(rows) == 0 {
		return
	}
	unf := -1.0
	for _, r := range rows {
		if r.Metric == "unfaithfulness" {
			unf = r.MedianRatio
		}
	}
	text := fmt.Sprintf("How much our run means vary against how much the published ones do: the median of our sd over the paper's, over the cells whose published sd is at least %.2f.", compare.SpreadFloor)
	if unf >= 0 {
		text += fmt.Sprintf(" For unfaithfulness it is %.2f: the authors drew the metric's SGLD samples for every counterfactual, ", unf) +
			"which averages their randomness out within a run; drawn once per class and run instead (eccco bench's default, --set sampling=per-run), the samples' randomness stays in each run mean (the same holds for the ECCCo-L1 family's own ten samples, which the authors' code also drew for every counterfactual)."
	}
	s.para(T(text))
	t := &Table{Caption: Inline{T(fmt.Sprintf("Spread of the run means: our sd over the published sd (median over the cells with a published sd of at least %.2f), and the cells whose runs vary more than twice as much as the paper's.", compare.SpreadFloor))},
		Label:   "tab:spread",
		Columns: []Column{{"Metric", "l"}, {"Cells", "r"}, {"Median ours / paper", "r"}, {"Ours > 2 × paper", "r"}}}
	for _, r := range rows {
		row := Row{Rule: r.Metric == "all", Cells: []Cell{{Text: r.Metric, Bold: r.Metric == "all"}, {Text: strconv.Itoa(r.Cells)}, {Text: fmt.Sprintf("%.2f", r.MedianRatio)}, {Text: share(r.Wider, r.Cells)}}}
		t.Rows = append(t.Rows, row)
	}
	s.add(t)
}

// calibration shows the models whose calibration explains uncertainty misses (compare.Comparison.CalibrationRows).
func (b *builder) calibration(s *Section) {
	var rows []compare.CalibrationRow
	put := 0
	for _, r := range b.cmp.CalibrationRows() {
		if r.PutDown > 0 {
			rows = append(rows, r)
			put += r.PutDown
		}
	}
	if len(rows) == 0 {
		return
	}
	s.para(T(fmt.Sprintf("%d uncertainty cells are out of reach of any search with our models. %s The table below lists the models where it decides cells.",
		put, CalibrationExplained)))
	t := &Table{Caption: Inline{T("Calibration and the uncertainty metric: q̂, the Ω any valid counterfactual can have, the published and our Ω of valid counterfactuals (least–largest over the generators), and the uncertainty misses it explains.")},
		Label:   "tab:calibration",
		Columns: []Column{{"Data set", "l"}, {"Model", "l"}, {"q̂", "r"}, {"Ω possible", "r"}, {"published", "r"}, {"ours", "r"}, {"misses explained", "r"}}}
	last := ""
	for _, r := range rows {
		ds := ""
		if r.Dataset != last {
			ds = datasetTitle(r.Dataset)
		}
		t.Rows = append(t.Rows, Row{Rule: r.Dataset != last, Cells: []Cell{{Text: ds}, {Text: r.Model}, {Text: qhatText(r.UncertaintyBound)},
			{Text: span(r.Min, r.Max)}, {Text: span(r.PaperMin, r.PaperMax)}, {Text: span(r.OursMin, r.OursMax)}, {Text: fmt.Sprintf("%d of %d", r.PutDown, r.Misses)}}})
		last = r.Dataset
	}
	s.add(t)
}

// modelIndex orders the document's models as the paper's tables do: MLP, MLP Ensemble, JEM, JEM Ensemble,
// LeNet-5 (the cell tables, WriteTables, order them by compare.ModelOrder).
func modelIndex(m string) int {
	for i, k := range []models.Kind{models.KindMLP, models.KindMLPEnsemble, models.KindJEM, models.KindJEMEnsemble, models.KindLeNet} {
		if k.Title() == m {
			return i
		}
	}
	return 100
}

// resultTable is one of the paper's result tables with the published line under each of ours.
func (b *builder) resultTable(dataset, subset string) *Table {
	return b.resultTableOf(b.in.Results.Cells, dataset, subset, "")
}

// resultTableOf is resultTable of other cells (a result set other than the main one, named by source).
func (b *builder) resultTableOf(cells []compare.Cell, dataset, subset, source string) *Table {
	type key struct{ model, gen, metric string }
	ours := map[key]compare.Cell{}
	type rk struct{ model, gen string }
	var rows []rk
	for _, c := range cells {
		if c.Dataset != dataset || c.Subset != subset {
			continue
		}
		ours[key{c.Model, c.Generator, c.Metric}] = c
		if !slices.Contains(rows, rk{c.Model, c.Generator}) {
			rows = append(rows, rk{c.Model, c.Generator})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if a, c := modelIndex(rows[i].model), modelIndex(rows[j].model); a != c {
			return a < c
		}
		return compare.GeneratorIndex(rows[i].gen) < compare.GeneratorIndex(rows[j].gen)
	})
	paper := map[key]compare.Published{}
	for _, p := range b.in.Published {
		if p.Dataset == dataset && p.Subset == subset {
			paper[key{p.Model, p.Generator, p.Metric}] = p
		}
	}
	what := "all counterfactuals"
	label := "tab:results-" + dataset
	if subset == "valid" {
		what = "valid counterfactuals only"
		label += "-valid"
	}
	if source != "" {
		what += ", " + source
		label = strings.Replace(label, "tab:results-", "tab:paper-mode-results-", 1)
	}
	prec := ""
	if decimals(dataset, "unfaithfulness") == 3 {
		prec = " Unfaithfulness and implausibility to three decimals, as the paper's Table 2 prints them for images; the published line has Table 2's three where it has the cell (MNIST's valid counterfactuals, MLP and LeNet-5) and the appendix tables' two elsewhere."
	}
	t := &Table{Long: true, Size: `\footnotesize`, Label: label,
		Caption: Inline{T(fmt.Sprintf("Results for %s (%s): mean ± sd over runs of the per-run means; ours on the first line, the paper's (grey) below. † ours outside the paper's mean ± max(3 sd, 3h), h half its last printed decimal; bold the best per model; * / ** more than 1 / 2 pooled sd better than Wachter.%s", datasetTitle(dataset), what, prec))},
		Columns: []Column{{"Model", "l"}, {"Generator", "l"}}}
	for _, m := range compare.Metrics {
		t.Columns = append(t.Columns, Column{m.Title, "r"})
	}
	last := ""
	for _, r := range rows {
		model := ""
		if r.model != last {
			model = r.model
		}
		row := Row{Rule: r.model != last, Cells: []Cell{{Text: model}, {Text: r.gen}}}
		sub := Row{Sub: true, Cells: []Cell{{}, {Text: "paper"}}}
		hasPaper := false
		for _, m := range compare.Metrics {
			c, ok := ours[key{r.model, r.gen, m.Name}]
			p, pok := paper[key{r.model, r.gen, m.Name}]
			cell := Cell{Text: "–"}
			if ok && !math.IsNaN(c.Mean) {
				prec := decimals(dataset, m.Name)
				cell = Cell{Text: fmt.Sprintf("%.*f ± %.*f", prec, c.Mean, prec, c.SD), Bold: c.Bold, Stars: c.Stars}
				if pok {
					cell.Marked = !compare.WithinRounding(c.Mean, p.Mean, p.SD, p.Decimals)
				}
			}
			row.Cells = append(row.Cells, cell)
			pc := Cell{Text: "–"}
			if pok {
				d := compare.Printed(p.Decimals)
				pc.Text = fmt.Sprintf("%.*f ± %.*f", d, p.Mean, d, p.SD)
				hasPaper = true
			}
			sub.Cells = append(sub.Cells, pc)
		}
		if !hasPaper {
			sub.Cells[1].Text = "paper: none"
			for i := 2; i < len(sub.Cells); i++ {
				sub.Cells[i].Text = ""
			}
		}
		t.Rows = append(t.Rows, row, sub)
		last = r.model
	}
	return t
}

func (b *builder) differences() error {
	s := b.d.add(&Section{Title: "What differs from the paper, and why", Label: "diff", Level: 1, Appendix: true})
	// The data sets the paper reports that these results lack.
	var absent []string
	have := ourDatasets(b.in.Results.Cells)
	for _, p := range b.in.Published {
		if !slices.Contains(have, p.Dataset) && !slices.Contains(absent, p.Dataset) {
			absent = append(absent, p.Dataset)
		}
	}
	sort.SliceStable(absent, func(i, j int) bool { return datasetOrder(absent[i]) < datasetOrder(absent[j]) })
	if len(absent) > 0 {
		var ts []string
		for _, a := range absent {
			ts = append(ts, datasetTitle(a))
		}
		note := ""
		var gone []string
		for _, a := range absent {
			if slices.Contains(b.in.Unavailable, a) {
				gone = append(gone, datasetTitle(a))
			}
		}
		if len(gone) > 0 {
			note = fmt.Sprintf(" (%s not available where this report was built)", joinWords(gone))
		}
		s.para(T(fmt.Sprintf("These results do not cover %s, which the paper reports: their benchmarks were not part of the results this report was built from%s.", joinWords(ts), note)))
	}
	blocks, err := b.knownDifferences()
	if err != nil {
		return err
	}
	s.add(blocks...)
	return nil
}

func (b *builder) appendix() error {
	cells := b.in.Results.Cells
	v := b.d.add(&Section{Title: "Results for all counterfactuals", Label: "app:all", Level: 1, Appendix: true})
	v.para(T("The paper's appendix tables: every counterfactual, valid or not, in the same layout as the valid-only tables of the main text."))
	for _, ds := range ourDatasets(cells) {
		if b.hasSubset(ds, "all") {
			v.add(b.resultTable(ds, "all"))
		}
	}
	if err := b.differences(); err != nil {
		return err
	}
	f := b.d.add(&Section{Title: "Further figures", Label: "app:figures", Level: 1, Appendix: true})
	n := len(b.d.Figures)
	for _, name := range appendixFigures {
		b.figure(f, name)
	}
	if len(b.d.Figures) == n {
		f.para(T("The figures directory holds none of the appendix's MNIST figures."))
	} else {
		f.para(T("The paper's appendix figures for MNIST: ECCCo+ and REVISE counterfactuals for every model (originals on the diagonal, each row turned into every class), and the reconstructions of REVISE's autoencoder."))
		// Put the sentence before the figures.
		blocks := f.Blocks
		f.Blocks = append([]Block{blocks[len(blocks)-1]}, blocks[:len(blocks)-1]...)
	}
	if len(b.missing) > 0 {
		f.para(T("Not in the figures directory, so not shown: " + strings.Join(b.missing, ", ") + " (`eccco figures` skips a figure whose data set is not available)." + b.unavailableNote(b.missing)))
	}
	if len(b.stale) > 0 {
		f.para(T("Shown as an earlier run drew them, though their data set is not available here now: " + strings.Join(b.stale, ", ") + "."))
	}
	b.provenance()
	return nil
}

// unavailableNote says which of the unavailable data sets the named figures need ("" if none).
func (b *builder) unavailableNote(names []string) string {
	var need []string
	for _, n := range names {
		for _, d := range b.specs[n].Datasets {
			if slices.Contains(b.in.Unavailable, d) && !slices.Contains(need, datasetTitle(d)) {
				need = append(need, datasetTitle(d))
			}
		}
	}
	if len(need) == 0 {
		return ""
	}
	return fmt.Sprintf(" They need %s, not available where this report was built.", joinWords(need))
}

// unavailableTitles are the titles of the data sets not available where the report was built.
func (b *builder) unavailableTitles() []string {
	var ts []string
	for _, d := range b.in.Unavailable {
		ts = append(ts, datasetTitle(d))
	}
	return ts
}

func (b *builder) provenance() {
	s := b.d.add(&Section{Title: "Provenance", Label: "app:provenance", Level: 1, Appendix: true})
	pv := b.in.Provenance
	s.para(T("Where every number of this report comes from. The report is generated by "), C("eccco report"), T(" from the files below; nothing in it is typed by hand except the prose."))
	commit := pv.Commit
	switch {
	case commit == "":
		commit = "unknown (not a git checkout)"
	case pv.Dirty:
		commit += " (with uncommitted changes)"
	}
	m := pv.Machine
	kv := [][2]string{{"Profile", pv.Profile}, {"Report built at commit", commit}}
	res := b.in.Results
	if len(res.Manifests) > 0 {
		var modes, seeds []string
		for _, mf := range res.Manifests {
			if !slices.Contains(modes, mf.Mode) {
				modes = append(modes, mf.Mode)
			}
			if s := strconv.FormatUint(mf.Seed, 10); !slices.Contains(seeds, s) {
				seeds = append(seeds, s)
			}
			kv = append(kv, [2]string{"Units of " + datasetTitle(mf.Dataset), fmt.Sprintf("protocol %d, mode %s, seed %d, %d factuals per run, %d generators, %d models", mf.Protocol, mf.Mode, mf.Seed, mf.Factuals, len(mf.Generators), len(mf.Models))})
		}
		kv = append(kv, [2]string{"Mode", strings.Join(modes, ", ")}, [2]string{"Seed", strings.Join(seeds, ", ")})
	}
	if res.Recorded != "" {
		// The recorded line names the commit that wrote the tables as "the checkout's HEAD" of its day.
		kv = append(kv, [2]string{"Results recorded as", strings.ReplaceAll(res.Recorded, "(the checkout's HEAD", "(then the checkout's HEAD")})
	}
	if res.Counterfactuals > 0 {
		kv = append(kv, [2]string{"Counterfactuals", strconv.Itoa(res.Counterfactuals)})
	}
	kv = append(kv, [2]string{"Per-run means", archiveText(res)})
	kv = append(kv, [2]string{"Backend (report build)", pv.Backend},
		[2]string{"Machine (report build)", fmt.Sprintf("%s, %d cores, %s/%s", m.CPU, m.Cores, m.OS, m.Arch)},
		[2]string{"Go", m.GoVersion})
	if ts := b.unavailableTitles(); len(ts) > 0 {
		kv = append(kv, [2]string{"Data sets not available", joinWords(ts) + ": not fetched where this report was built (eccco data fetch NAME; data/README.md says how to get them); the figures and notebook cells that need them were skipped, and results without them are shorter"})
	}
	for _, src := range pv.Sources {
		kv = append(kv, [2]string{"Input: " + src[0], src[1]})
	}
	t := &Table{Caption: Inline{T("Provenance of the results and of this report.")}, Label: "tab:provenance",
		Columns: []Column{{"", "l"}, {"", "p{11cm}"}}}
	for _, p := range kv {
		if p[1] == "" {
			continue
		}
		t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: p[0], Bold: true}, {Text: p[1]}}})
	}
	s.add(t)
	if len(b.in.Stages) == 0 {
		s.para(T("This report was built by eccco report on results committed earlier, not by a run of reproduce.sh, so it has no stage timings of its own (reproduce.sh writes them to stages.tsv; eccco report --stages FILE); the benchmarks' own wall time is in the section on machine and wall time."))
		return
	}
	cpu := stagesHaveCPU(b.in.Stages)
	caption := "Wall time of each stage of reproduce.sh, as recorded in its stages.tsv: summed over every invocation that made these outputs, an interrupted run and its resumptions (the report stage is running while this is written)."
	cols := []Column{{"Stage", "l"}, {"Status", "l"}, {"Wall time", "r"}}
	if cpu {
		caption = "Wall time and CPU time (user and system, of every process the stage ran) of each stage of reproduce.sh, as recorded in its stages.tsv: summed over every invocation that made these outputs, an interrupted run and its resumptions (the report stage is running while this is written)."
		cols = append(cols, Column{"CPU time", "r"})
	}
	st := &Table{Caption: Inline{T(caption)}, Label: "tab:stages", Columns: cols}
	total, totalCPU := 0.0, 0.0
	for _, sg := range b.in.Stages {
		total += sg.Seconds
		totalCPU += sg.CPUSeconds
		row := Row{Cells: []Cell{{Text: sg.Name}, {Text: sg.Status}, {Text: duration(sg.Seconds)}}}
		if cpu {
			row.Cells = append(row.Cells, Cell{Text: duration(sg.CPUSeconds)})
		}
		st.Rows = append(st.Rows, row)
	}
	all := Row{Rule: true, Cells: []Cell{{Text: "all", Bold: true}, {}, {Text: duration(total)}}}
	if cpu {
		all.Cells = append(all.Cells, Cell{Text: duration(totalCPU)})
	}
	st.Rows = append(st.Rows, all)
	if cpu {
		s.para(T(fmt.Sprintf("The run took %.2f CPU-hours in %.2f hours of wall time (%.1f of the machine's %d cores busy on average).", totalCPU/3600, total/3600, totalCPU/math.Max(total, 1e-9), b.in.Provenance.Machine.Cores)))
	}
	s.add(st)
}

func duration(secs float64) string {
	s := int(math.Round(secs))
	switch {
	case s >= 3600:
		return fmt.Sprintf("%d h %02d min", s/3600, s%3600/60)
	case s >= 60:
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	return fmt.Sprintf("%d s", s)
}

// decimals is how many decimals a metric's cells are printed with: three for the image sets'
// unfaithfulness and implausibility (the paper's Table 2, tab:results-vision, prints them so: their sd
// are below 0.005), two elsewhere (the paper's tables).
func decimals(dataset, metric string) int {
	if info, err := data.Lookup(dataset); err == nil && info.Kind == data.KindVision && (metric == "unfaithfulness" || metric == "implausibility") {
		return 3
	}
	return 2
}

// mediaBox matches a PDF page's /MediaBox [x0 y0 x1 y1].
var mediaBox = regexp.MustCompile(`/MediaBox\s*\[\s*([-0-9.]+)\s+([-0-9.]+)\s+([-0-9.]+)\s+([-0-9.]+)\s*\]`)

// pdfWidth returns the width in points of a PDF's first page (its /MediaBox, which eccco's figures write
// uncompressed), or 0 when the file cannot be read or has none.
func pdfWidth(path string) float64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	m := mediaBox.FindSubmatch(b)
	if m == nil {
		return 0
	}
	x0, err0 := strconv.ParseFloat(string(m[1]), 64)
	x1, err1 := strconv.ParseFloat(string(m[3]), 64)
	if err0 != nil || err1 != nil || x1 <= x0 {
		return 0
	}
	return x1 - x0
}

// archiveText says which data sets' cells the report's per-run means rebuild (Results.Archived) and
// which have their cells alone.
func archiveText(res *Results) string {
	var without []string
	for _, c := range res.Cells {
		if !slices.Contains(res.Archived, c.Dataset) && !slices.Contains(without, c.Dataset) {
			without = append(without, c.Dataset)
		}
	}
	titles := func(ds []string) string {
		out := make([]string, len(ds))
		for i, d := range ds {
			out[i] = datasetTitle(d)
		}
		return strings.Join(out, ", ")
	}
	switch {
	case len(res.Archived) == 0:
		return "none: the cells alone (no " + RunMeansFile + " beside them)"
	case len(without) == 0:
		return fmt.Sprintf("%d, every cell rebuilt from them and checked bit for bit (%s)", len(res.RunMeans), RunMeansFile)
	}
	return fmt.Sprintf("%d for %s, their cells rebuilt from them and checked bit for bit (%s); %s: the cells alone",
		len(res.RunMeans), titles(res.Archived), RunMeansFile, titles(without))
}

// stagesHaveCPU reports whether stages were given and every one records its CPU time.
func stagesHaveCPU(stages []Stage) bool {
	for _, sg := range stages {
		if !sg.HasCPU {
			return false
		}
	}
	return len(stages) > 0
}

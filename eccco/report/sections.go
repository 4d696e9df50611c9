package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/figures"
)

// claimSources are the result sets the paper's claims are tested on: the authors'-code results, the
// same rounded as published (compare.LikeForLike), the replay-only and second-seed results, the paper's
// equations and the published tables, those that were given.
func (b *builder) claimSources() []compare.ClaimSource {
	src := func(r *Results) compare.ClaimSource {
		return compare.ClaimSource{Name: b.modeName(r), Cells: r.Cells, RunMeans: r.RunMeans, Ours: true}
	}
	main := src(b.in.Results)
	pub := b.in.Published
	var like *compare.ClaimSource
	if pub != nil {
		l := compare.LikeForLike(main, pub)
		like = &l
	}
	// The appendix grids' 1-nearest-neighbour shares, drawn with these results' image models (claim 9).
	if b.in.FiguresDir != "" && b.in.Banner == "" { // not the quick profile, whose figures use other models
		if shares, err := figures.GridShares(b.in.FiguresDir); err == nil {
			for _, g := range shares {
				main.Cells = append(main.Cells, compare.GridShareCells("mnist", g.Model.Title(), string(catalogue.ECCCoPlus), g.ECCCoPlus, g.Counterfactual),
					compare.GridShareCells("mnist", g.Model.Title(), string(catalogue.REVISE), g.REVISE, g.Counterfactual))
			}
		}
	}
	out := []compare.ClaimSource{main}
	if like != nil {
		out = append(out, *like)
	}
	for _, r := range []*Results{b.in.ReplayOnly, b.in.SecondSeed, b.in.PaperMode} {
		if r != nil {
			out = append(out, src(r))
		}
	}
	if pub != nil {
		out = append(out, compare.PublishedSource(pub))
	}
	return out
}

// modeName names a result set by its mode and runs: "authors' code (50 runs)".
func (b *builder) modeName(r *Results) string {
	mode := r.Mode
	if mode == "" && len(r.Manifests) > 0 {
		mode = r.Manifests[0].Mode
	}
	switch mode {
	case "authors-code":
		mode = "authors' code"
	case "paper":
		mode = "paper's equations"
	case "":
		mode = "our results"
	}
	if r == b.in.ReplayOnly { // the authors'-code mode by definition
		mode = "authors' code, replay only"
	}
	if r == b.in.SecondSeed {
		mode = "authors' code, second seed"
		if r.Mode == "paper" {
			mode = "paper's equations, second seed"
		}
	}
	runs := 0
	for _, c := range r.Cells {
		runs = max(runs, c.Runs)
	}
	return fmt.Sprintf("%s (up to %d runs)", mode, runs)
}

// claims is the section of the paper's claims, each tested in every source (compare.TestClaims).
func (b *builder) claims() error {
	s := b.d.add(&Section{Title: "The paper's claims, tested", Label: "claims", Level: 1})
	srcs := b.claimSources()
	f := compare.TestClaims(srcs)
	b.findings = &f
	raw, err := EncodeFindings(f)
	if err != nil {
		return fmt.Errorf("report: the findings: %w", err)
	}
	b.d.Findings = raw
	tests := map[string]bool{}
	for _, c := range f.Claims {
		for _, fd := range c.Findings {
			for _, u := range fd.Units {
				for _, e := range u.Estimates {
					if e.Estimate.Test != "" {
						tests[fd.Source+"\x00"+e.Estimate.Test] = true
					}
				}
			}
		}
	}
	var how []string
	for _, src := range srcs {
		var ts []string
		for _, t := range []string{compare.TestPaired, compare.TestWelch} {
			if tests[src.Name+"\x00"+t] {
				ts = append(ts, t)
			}
		}
		if len(ts) > 0 {
			how = append(how, src.Name+": "+strings.Join(ts, " and "))
		}
	}
	blocks, err := prose("claims", map[string]any{
		"Rule": compare.ClaimRule, "HoldsPct": pct(int(compare.VerdictHoldsShare*100), 100), "PartlyPct": pct(int(compare.VerdictPartlyShare*100), 100),
		"Claims": len(f.Claims), "Tests": how, "File": FindingsFile,
	})
	if err != nil {
		return err
	}
	s.add(blocks...)
	t := &Table{Caption: Inline{T("The paper's claims tested in each result set: units (data set × model) whose differences count for the claim / against it / neither (not significant at 95 %, or below 5 % of the metric), then the verdict. \"Rounded as published\" is the authors'-code results rounded to the decimals the paper printed each cell with (two for every cell the claims read: they read cells of all counterfactuals, and only Table 2's valid-counterfactual cells have three) and tested as the published tables are (Welch, on the pairs the paper has): the like-for-like column for the published one.")},
		Label: "tab:claims", Columns: []Column{{"Claim", `>{\raggedright\arraybackslash}p{3.6cm}`}}, Size: `\footnotesize`}
	for _, src := range srcs {
		t.Columns = append(t.Columns, Column{src.Name, `>{\raggedright\arraybackslash}p{1.75cm}`})
	}
	for _, c := range f.Claims {
		row := Row{Cells: []Cell{{Text: c.ID}}}
		for i, fd := range c.Findings {
			row.Cells = append(row.Cells, Cell{Text: tallyText(fd), Paper: !srcs[i].Ours})
		}
		t.Rows = append(t.Rows, row)
	}
	s.add(t)
	if len(f.Sensitivity) > 0 {
		var parts []string
		for _, sv := range f.Sensitivity {
			holds := 0
			for _, row := range sv.Tallies {
				if row[0].Verdict() == compare.VerdictHolds {
					holds++
				}
			}
			parts = append(parts, fmt.Sprintf("%s: %d", pct(int(math.Round(sv.Materiality*100)), 100), holds))
		}
		s.para(T(fmt.Sprintf("How the materiality decides: the claims that hold in the %s results at a materiality of %s of %d.", srcs[0].Name, strings.Join(parts, ", "), len(f.Claims))))
	}
	for i, c := range f.Claims {
		s.add(&Para{Text: Inline{B(fmt.Sprintf("Claim %d: %s.", i+1, c.ID)), T(" "), I("“" + c.Quote + "”"), T(" (" + c.Where + ".)")}})
		var ev []string
		for _, fd := range c.Findings {
			if fd.Tally.Measured() == 0 {
				ev = append(ev, fd.Source+": not checkable")
				continue
			}
			ev = append(ev, fmt.Sprintf("%s: %d for, %d against, %d neither of %d (%s)", fd.Source, fd.Tally.For, fd.Tally.Against, fd.Tally.Neither, fd.Tally.Measured(), fd.Verdict))
		}
		items := []Inline{
			{B("Tested:"), T(" " + c.Test + ".")},
			{B("Evidence:"), T(" " + strings.Join(ev, "; ") + ".")},
		}
		if c.Limits != "" {
			items = append(items, Inline{B("Limits:"), T(" " + c.Limits)})
		}
		s.add(&List{Items: items})
		var figs []string
		for _, fig := range c.Figures {
			if spec, ok := b.specs[fig]; ok && b.hasFigure(fig) {
				where := "beyond the paper"
				if spec.Label != "" {
					where = "the paper's " + spec.Label
				}
				figs = append(figs, fmt.Sprintf("%s (%s)", fig, where))
			}
		}
		if len(figs) > 0 {
			s.add(&Para{Text: Inline{T("Figures in this report that bear on it: " + joinWords(figs) + "; their captions say what matches the paper's.")}})
		}
		s.add(b.claimUnits(i+1, c.Findings[0]))
	}
	return nil
}

// claimUnits is the table of one claim's differences in one source: each unit's estimate with its
// interval, effect and outcome.
func (b *builder) claimUnits(n int, fd compare.ClaimFinding) *Table {
	t := &Table{Caption: Inline{T(fmt.Sprintf("Claim %d in the %s results: each difference with its 95 %% interval, its size relative to the metric (effect), the test (paired over runs, or Welch) with its runs, and what it counts for.", n, fd.Source))},
		Label: fmt.Sprintf("tab:claim-%c", 'a'+n-1), Long: true, Size: `\footnotesize`,
		Columns: []Column{{"Unit", "p{3cm}"}, {"Difference", "p{4.2cm}"}, {"Estimate [interval]", "l"}, {"Effect", "r"}, {"Test", "l"}, {"Counts", "l"}}}
	for _, u := range fd.Units {
		for j, e := range u.Estimates {
			name := ""
			if j == 0 {
				name = unitName(u)
			}
			est, eff, test := "–", "–", "–"
			if e.Outcome != compare.Unmeasured {
				est = fmt.Sprintf("%s [%s, %s]", sig(e.Estimate.Value), sig(e.Estimate.Lo), sig(e.Estimate.Hi))
				eff = strings.ReplaceAll(fmt.Sprintf("%+.1f %%", 100*e.Estimate.Effect()), "-", "−")
				test = fmt.Sprintf("%s (%d)", strings.TrimSuffix(e.Estimate.Test, " over runs"), e.Estimate.Runs)
			}
			t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: name}, {Text: e.Label + " " + string(e.Want)}, {Text: est}, {Text: eff}, {Text: test}, {Text: string(e.Outcome)}}})
		}
	}
	return t
}

// signedSig prints a difference with two significant digits, its sign always, and a true minus sign.
func signedSig(v float64) string {
	t := strconv.FormatFloat(v, 'g', 2, 64)
	if v >= 0 {
		t = "+" + t
	}
	return strings.ReplaceAll(t, "-", "−")
}

// sig prints a difference with three significant digits and a true minus sign.
func sig(v float64) string { return strings.ReplaceAll(strconv.FormatFloat(v, 'g', 3, 64), "-", "−") }

// hasFigure reports whether the figures directory holds the figure.
func (b *builder) hasFigure(name string) bool {
	if b.in.FiguresDir == "" {
		return false
	}
	for _, ext := range []string{".pdf", ".png"} {
		if fileExists(filepath.Join(b.in.FiguresDir, name+ext)) {
			return true
		}
	}
	return false
}

// mdTable parses a Markdown table (the first run of lines starting with "|") into its header and rows.
func mdTable(md string) (head []string, rows [][]string) {
	split := func(l string) []string {
		l = strings.TrimSpace(l)
		l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
		var cs []string
		for _, c := range strings.Split(l, "|") {
			cs = append(cs, strings.TrimSpace(c))
		}
		return cs
	}
	in := false
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "|") {
			if in {
				break
			}
			continue
		}
		cs := split(l)
		switch {
		case !in:
			head, in = cs, true
		case strings.Trim(strings.Join(cs, ""), "-: ") == "":
		default:
			rows = append(rows, cs)
		}
	}
	return head, rows
}

// tableFromMarkdown makes a Table of a Markdown table: the first column left-aligned, the others right.
func tableFromMarkdown(md string, caption Inline, label string, rename func(string) string) *Table {
	head, rows := mdTable(md)
	if len(head) == 0 {
		return nil
	}
	t := &Table{Caption: caption, Label: label}
	for i, h := range head {
		a := "r"
		if i == 0 {
			a = "l"
		}
		t.Columns = append(t.Columns, Column{h, a})
	}
	for _, r := range rows {
		row := Row{Rule: len(r) > 0 && r[0] == "all"}
		for i, c := range r {
			if i == 0 && rename != nil {
				c = rename(c)
			}
			row.Cells = append(row.Cells, Cell{Text: c, Bold: row.Rule && i == 0})
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// asRunWidths are the widths of the as-run parameter tables' text columns in LaTeX.
var asRunWidths = map[string]string{"Energy terms conditioned on": "4.2cm", "JEM ensemble members": "2.8cm", "λ energy": "5.2cm", "Other generators": "3.4cm"}

// setup is the section on data, models, generators, protocol and compute.
func (b *builder) setup() error {
	s := b.d.add(&Section{Title: "Methods and compute", Label: "setup", Level: 1})
	s.para(T("What the results were made from and with: the data sets, the models and generators with their hyper-parameters, the protocol and the tolerance rule, and the compute."))
	d := b.d.add(&Section{Title: "Data sets", Label: "setup:data", Level: 2})
	dt := &Table{Caption: Inline{T("The data sets, as eccco-go loads them (eccco/data).")}, Label: "tab:data",
		Columns: []Column{{"Data set", "l"}, {"Kind", "l"}, {"Source", "p{10cm}"}}}
	for _, name := range ourDatasets(b.in.Results.Cells) {
		info, err := data.Lookup(name)
		if err != nil {
			continue
		}
		dt.Rows = append(dt.Rows, Row{Cells: []Cell{{Text: info.Title}, {Text: info.Kind}, {Text: info.Source}}})
	}
	d.para(T("Eight data sets, as in the paper: three synthetic ones, three tabular ones from credit and housing, and two of images."))
	d.add(dt)

	m := b.d.add(&Section{Title: "Models and generators", Label: "setup:models", Level: 2})
	m.para(T("The models (MLP, deep ensemble of MLPs, joint energy model and its ensemble, LeNet-5 for the images) and the generators (Wachter, REVISE, Schut, ECCCo and its variants) with the hyper-parameters the code uses, rendered from the code's own settings in the layout of the paper's parameter tables. Where the results record their mode, each of the paper's tables comes after the same table as that mode ran it, the paper's value in brackets wherever the runs used another. Where the authors published trained models, the authors'-code mode explains those models instead of training its own (our rendering of the paper's Table 5 below marks them)."))
	pts, err := ParameterTables()
	if err != nil {
		return err
	}
	// Each of the paper's tables comes after the same table as the main result set's mode ran it, where the
	// result set records its mode.
	if mode := experiment.Mode(b.in.Results.Mode); mode != "" {
		asRun, err := ParameterTablesAsRun(mode, ourDatasets(b.in.Results.Cells))
		if err != nil {
			return err
		}
		model, ebm, gen := pts[0], pts[1], pts[2]
		ebm.Caption = "JEM parameters of the paper's settings (table\\_ebm\\_params.tex), with which the paper's-equations mode trains its JEMs."
		gen.Caption = "Generator parameters of the paper's settings (table\\_gen\\_params.tex), with which the paper's-equations mode runs every generator. " + generatorColumnsNote
		pts = []ParameterTable{model, asRun[0], ebm, asRun[1], gen}
		if b.in.Performance != nil {
			models, err := ModelParametersAsRun(b.in.Performance, mode)
			if err != nil {
				return err
			}
			pts[0].Caption = "Model and training parameters of the paper's settings (table\\_params.tex), with which the paper's-equations mode trains its models."
			pts = append([]ParameterTable{models}, pts...)
		}
	}
	for _, pt := range pts {
		caption := strings.NewReplacer(`\_`, "_").Replace(pt.Caption)
		if t := tableFromMarkdown(pt.Markdown, Inline{T(caption)}, "tab:"+pt.Name, datasetTitle); t != nil {
			t.Size = `\footnotesize`
			for i, c := range t.Columns {
				if w, ok := asRunWidths[c.Head]; ok && strings.HasSuffix(pt.Name, "-as-run") {
					t.Columns[i].Align = `>{\raggedright\arraybackslash}p{` + w + "}" // wrapped, not justified
				}
			}
			m.add(t)
		}
	}

	if err := b.switches(); err != nil {
		return err
	}

	p := b.d.add(&Section{Title: "Protocol and tolerance", Label: "setup:protocol", Level: 2})
	cells := b.in.Results.Cells
	runs := 0
	for _, c := range cells {
		runs = max(runs, c.Runs)
	}
	setup := fmt.Sprintf("Per data set, every model and every generator explains the same factuals in each run, and each metric is averaged within a run and then across runs (mean ± sd of the run means), as in the paper. The authors'-code results cover %s with up to %d runs per cell", b.datasetsText(), runs)
	if b.in.Results.Counterfactuals > 0 {
		setup += fmt.Sprintf(" and %d counterfactuals in all", b.in.Results.Counterfactuals)
	}
	setup += "."
	if pm := b.in.PaperMode; pm != nil {
		pruns := 0
		for _, c := range pm.Cells {
			pruns = max(pruns, c.Runs)
		}
		var ds []string
		for _, d := range ourDatasets(pm.Cells) {
			ds = append(ds, datasetTitle(d))
		}
		setup += fmt.Sprintf(" The results of the paper's equations cover %s with up to %d runs per cell.", joinWords(ds), pruns)
	}
	p.para(T(setup))
	p.para(T("A cell of ours is "), I("within"), T(" the published one when "), T(compare.ToleranceRule), T("; "), I("strictly within"), T(" when "), T(compare.StrictRule), T(". Both counts are given wherever cells are counted."))

	c := b.d.add(&Section{Title: "Machine and wall time", Label: "setup:compute", Level: 2})
	// The machine that builds the report only renders it: it is named in the provenance table, not here,
	// so that the report's body reads the same whichever machine builds it.
	c.para(T("The machine, Go and backend that built this report, which only renders the results, are in the provenance table at the end (the appendix Provenance). The benchmarks' wall time by stage and data set, where the result directories record it (eccco bench writes timings.md):"))
	if b.in.forKey {
		// The wall times measure the run that made the results, not the results (Inputs.withoutBuild).
		return nil
	}
	found := false
	var held []string
	for _, r := range []*Results{b.in.Results, b.in.ReplayOnly, b.in.PaperMode, b.in.SecondSeed} {
		if r == nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(r.Dir, "timings.md"))
		if err != nil {
			c.para(T(fmt.Sprintf("The %s results (%s) carry no timings.md: their wall time by data set was not committed with them, and this report does not estimate it.", b.modeName(r), displayPath(r.Dir))))
			continue
		}
		found = true
		var minutes float64
		summed := false
		for _, blk := range timingBlocks(string(raw)) {
			caption := append(Inline{T(fmt.Sprintf("Wall time of the %s benchmark (%s/timings.md): ", b.modeName(r), displayPath(r.Dir)))}, mdInline(strings.TrimSuffix(blk.head, ":"), "")...)
			t := tableFromMarkdown(blk.table, caption, "", datasetTitle)
			if t == nil {
				continue
			}
			t.Size = `\footnotesize`
			c.add(t)
			if n := len(t.Rows); n > 0 && len(t.Rows[n-1].Cells) > 0 && t.Rows[n-1].Cells[0].Text == "all" {
				last := t.Rows[n-1].Cells[len(t.Rows[n-1].Cells)-1].Text
				if min, err := strconv.ParseFloat(last, 64); err == nil {
					minutes += min
					summed = true
				}
			}
		}
		if summed {
			held = append(held, fmt.Sprintf("%s %.1f core-hours", b.modeName(r), minutes/60))
		}
	}
	if !found {
		c.para(T("No result directory carries its timings."))
	}
	if len(held) > 0 {
		cpu := "The benchmarks do not record CPU time by data set"
		if stagesHaveCPU(b.in.Stages) {
			cpu += "; the CPU time of each stage of the run that built this report is in the provenance appendix"
		} else {
			cpu += " (reproduce.sh records each stage's CPU time in stages.tsv; this report was not built by it)"
		}
		c.para(T("Each table's last row sums the data sets' own wall times. The benchmarks ran up to two data sets at a time on the 2-core machine, so that sum approximates the core time each held: " + joinWords(held) + ". " + cpu + "; a data set's wall time under load overstates what it would take alone."))
	}
	c.para(T("bench/README.md records whole-protocol runs of ./reproduce.sh on the project's 2-core machine with their commits, and the per-step speed of the search against PyTorch, CARLA and DiCE."))
	return nil
}

// timingBlock is one table of a timings.md with the paragraph before it (its caption).
type timingBlock struct{ head, table string }

// timingBlocks splits a timings.md into its tables, each with the paragraph that precedes it: eccco bench
// writes one, and a results directory assembled from several runs (a rerun of some data sets on another
// backend) holds one per run, each saying what it measured.
func timingBlocks(md string) []timingBlock {
	var out []timingBlock
	head := ""
	for _, chunk := range strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n\n") {
		chunk = strings.TrimSpace(chunk)
		switch {
		case chunk == "":
		case strings.HasPrefix(chunk, "|"):
			out = append(out, timingBlock{head: head, table: chunk})
			head = ""
		default:
			head = strings.Join(strings.Fields(chunk), " ")
		}
	}
	return out
}

// displayPath is p relative to the checkout's root when it lies inside it, else p as given.
func displayPath(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return filepath.ToSlash(p)
	}
	root, ok := data.ModuleRoot(wd)
	abs, err2 := filepath.Abs(p)
	if !ok || err2 != nil {
		return filepath.ToSlash(p)
	}
	if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(p)
}

// datasetParagraph says, from the numbers, what matches on one data set and what does not.
func (b *builder) datasetParagraph(ds string) (Block, error) {
	if b.cmp == nil {
		return nil, nil
	}
	var rows []compare.ComparedCell
	for _, r := range b.cmp.Rows {
		if r.Dataset == ds {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	within, strict := compare.WithinCounts(rows)
	groups := compare.WithinBy(rows, func(r compare.ComparedCell) string { return r.Metric })
	sort.SliceStable(groups, func(i, j int) bool { return compare.MetricIndex(groups[i].Name) < compare.MetricIndex(groups[j].Name) })
	above := map[string]int{} // misses above the published mean, per metric
	for _, r := range rows {
		if !r.Within && r.Mean > r.Paper {
			above[r.Metric]++
		}
	}
	var metrics []string
	for _, g := range groups {
		m := fmt.Sprintf("%s %s", g.Name, pct(g.Rounding, g.Cells))
		var notes []string
		if miss := g.Cells - g.Rounding; miss > 0 && g.Rounding*5 < g.Cells*4 { // below 80 %: which way the misses lie
			switch a := above[g.Name]; a {
			case miss:
				notes = append(notes, "every miss above the published")
			case 0:
				notes = append(notes, "every miss below the published")
			default:
				notes = append(notes, fmt.Sprintf("%d of its %d misses above the published", a, miss))
			}
		}
		if n := discriminatingNote(g); n != "" {
			notes = append(notes, n)
		}
		if len(notes) > 0 {
			m += " (" + strings.Join(notes, "; ") + ")"
		}
		metrics = append(metrics, m)
	}
	missBy := map[string]int{}
	for _, r := range rows {
		if !r.Within {
			missBy[r.Generator]++
		}
	}
	worst, wn := "", 0
	for g, n := range missBy {
		if n > wn || (n == wn && compare.GeneratorIndex(g) < compare.GeneratorIndex(worst)) {
			worst, wn = g, n
		}
	}
	misses := len(rows) - within
	if misses < 3 || wn*3 < misses { // too few misses, or no generator stands out
		worst = ""
	}
	var causes []string
	for _, c := range compare.MissCauses(rows) {
		name, _, _ := strings.Cut(c.Cause, ":")
		causes = append(causes, fmt.Sprintf("%s (%d)", name, c.Cells))
	}
	signs := ""
	var ut, it compare.SignTally
	for _, sg := range b.cmp.Signs {
		if sg.Dataset == ds {
			compare.TallySign(&ut, sg.UnfaithKnown, sg.UnfaithTie, sg.UnfaithAgrees)
			compare.TallySign(&it, sg.ImplKnown, sg.ImplTie, sg.ImplAgrees)
		}
	}
	if ut.Known > 0 || it.Known > 0 {
		signs = fmt.Sprintf("Over its models, the sign of ECCCo − Wachter unfaithfulness: %s; that of REVISE − Wachter implausibility: %s.", SignText(ut), SignText(it))
	}
	var offsets []string
	for _, o := range compare.Offsets(rows) {
		dir, n := "above", o.Above
		if o.Median < 0 {
			dir, n = "below", o.Below
		}
		offsets = append(offsets, fmt.Sprintf("%s %s (the median of ours − paper; ours %s in %d of %d cells), each generator's median from %s to %s",
			o.Metric, signedSig(o.Median), dir, n, o.Cells, signedSig(o.GenLow), signedSig(o.GenHigh)))
	}
	blocks, err := prose("dataset", map[string]any{"Title": datasetTitle(ds), "Within": within, "Cells": len(rows), "Strict": share(strict, len(rows)),
		"Metrics": metrics, "Signs": signs, "Misses": misses, "WorstGen": worst, "Causes": causes, "Offsets": strings.Join(offsets, "; ")})
	if err != nil || len(blocks) == 0 {
		return nil, err
	}
	return blocks[0], nil
}

// easyHard is the section on what was easy and what was hard to reproduce.
func (b *builder) easyHard() error {
	if b.cmp == nil {
		return nil
	}
	s := b.d.add(&Section{Title: "What was easy, what was hard", Label: "easyhard", Level: 1})
	const easyShare, hardShare = 95, 80
	var easy, hard []string
	for _, g := range compare.WithinBy(b.cmp.Rows, func(r compare.ComparedCell) string { return r.Dataset }) {
		p := 100 * float64(g.Rounding) / float64(g.Cells)
		name := fmt.Sprintf("%s (%s)", datasetTitle(g.Name), pct(g.Rounding, g.Cells))
		if p >= easyShare {
			easy = append(easy, name)
		}
		if p < hardShare {
			hard = append(hard, name)
		}
	}
	perf := ""
	if n, k := len(b.in.Performance), 0; n > 0 {
		known := 0
		for _, p := range b.in.Performance {
			if p.HasPaper {
				known++
				if d := p.Accuracy - p.PaperAccuracy; d >= -compare.PerformanceTolerance && d <= compare.PerformanceTolerance {
					k++
				}
			}
		}
		perf = fmt.Sprintf("%d of %d", k, known)
	}
	var top []string
	causes := compare.MissCauses(b.cmp.Rows)
	misses := 0
	for _, c := range causes {
		misses += c.Cells
	}
	for i, c := range causes {
		if i == 3 {
			break
		}
		name, _, _ := strings.Cut(c.Cause, ":")
		top = append(top, fmt.Sprintf("%s, %d of %d (%s)", name, c.Cells, misses, pct(c.Cells, misses)))
	}
	switches := len(experiment.Switches())
	byProv := switchesByProvenance()
	diffs, err := b.knownDifferences()
	if err != nil {
		return err
	}
	known := knownDifferenceCount(diffs)
	pmWithin, authWithin := b.paperModeWithin()
	blocks, err := prose("easyhard", map[string]any{"Easy": easy, "EasyPct": strconv.Itoa(easyShare) + " %", "Hard": hard, "HardPct": strconv.Itoa(hardShare) + " %",
		"Perf": perf, "PerfTol": strconv.FormatFloat(compare.PerformanceTolerance, 'f', 2, 64), "TopCauses": top,
		"Switches": switches, "Replayed": byProv[experiment.Replayed], "Inferred": byProv[experiment.Inferred], "Fitted": byProv[experiment.Fitted], "Known": known, "PaperModeWithin": pmWithin, "AuthorsWithin": authWithin})
	if err != nil {
		return err
	}
	s.add(blocks...)
	return nil
}

// conclusion closes the main text with the verdicts and the headline counts.
func (b *builder) conclusion() error {
	s := b.d.add(&Section{Title: "Conclusion", Label: "conclusion", Level: 1})
	data := map[string]any{"PaperMode": b.in.PaperMode != nil}
	data["Modes"] = b.modeVerdicts()
	data["PaperModeWithin"], data["AuthorsWithin"] = b.paperModeWithin()
	if b.findings != nil && len(b.findings.Claims) > 0 && len(b.findings.Claims[0].Findings) > 0 {
		c := b.findings.Claims[0]
		fd := c.Findings[0]
		data["Central"] = map[string]any{"ID": c.ID, "Source": fd.Source, "For": fd.Tally.For, "Against": fd.Tally.Against,
			"Neither": fd.Tally.Neither, "Measured": fd.Tally.Measured(), "Verdict": fd.Verdict}
	}
	type within struct{ Rounding, Strict, Cells int }
	w := within{}
	if b.cmp != nil {
		w.Rounding, w.Strict, w.Cells = b.within()
		gs := compare.WithinBy(b.cmp.Rows, func(r compare.ComparedCell) string { return r.Dataset })
		if len(gs) > 0 {
			cmpShare := func(a, c compare.WithinGroup) int { return a.Rounding*c.Cells - c.Rounding*a.Cells }
			hi, lo := slices.MaxFunc(gs, cmpShare), slices.MinFunc(gs, cmpShare)
			data["Best"] = fmt.Sprintf("%s (%s)", datasetTitle(hi.Name), pct(hi.Rounding, hi.Cells))
			data["Worst"] = fmt.Sprintf("%s (%s)", datasetTitle(lo.Name), pct(lo.Rounding, lo.Cells))
		}
		misses, unexplained := 0, 0
		for _, c := range compare.MissCauses(b.cmp.Rows) {
			misses += c.Cells
			if c.Cause == compare.CauseUnexplained {
				unexplained += c.Cells
			}
		}
		data["Misses"], data["Unexplained"] = misses, unexplained
	}
	data["Within"] = w
	if ro := b.in.ReplayOnly; ro != nil && b.in.Published != nil {
		r, _ := compare.WithinCounts(compare.CompareWithBounds(ro.Cells, b.in.Published, ro.Bounds).Rows)
		data["ReplayOnly"] = share(r, w.Cells)
		if kept := b.replayNotRerun(); len(kept) > 0 {
			data["ReplayKept"] = joinWords(kept)
		}
	}
	if sec := b.in.SecondSeed; sec != nil && b.in.Published != nil {
		a := compare.SeedShifts(b.in.Results.Cells, sec.Cells, b.in.Published).All
		data["Seed"] = map[string]any{"Differ": share(a.Differ, a.Cells), "Moved": a.Left + a.Entered, "Published": a.Published}
	}
	blocks, err := prose("conclusion", data)
	if err != nil {
		return err
	}
	s.add(blocks...)
	return nil
}

// FigureSettings reads, from the gallery's README (figures/README.md), the `eccco figures` commands of its
// first sh code block and returns, per figure stem, the settings it was drawn with (mode, seed, --set
// knobs; the PNG's DPI is left out, the LaTeX version embeds the vector PDF): a command with --only applies to the figures it names, one without to every other figure.
func FigureSettings(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: reading the figure settings: %w", err)
	}
	text := string(raw)
	start := strings.Index(text, "```sh")
	if start < 0 {
		return nil, nil
	}
	end := strings.Index(text[start+5:], "```")
	if end < 0 {
		return nil, nil
	}
	block := strings.ReplaceAll(text[start+5:start+5+end], "\\\n", " ")
	flag := func(cmd, name string) string {
		m := regexp.MustCompile(`--` + name + `[ =](\S+)`).FindStringSubmatch(cmd)
		if m == nil {
			return ""
		}
		return m[1]
	}
	out := map[string]string{}
	def := ""
	for _, cmd := range strings.Split(block, "\n") {
		if !strings.Contains(cmd, "eccco figures") {
			continue
		}
		mode := flag(cmd, "mode")
		if mode == "" {
			mode = "paper (the default)"
		}
		parts := []string{"mode " + mode}
		if seed := flag(cmd, "seed"); seed != "" {
			parts = append(parts, "seed "+seed)
		}
		if set := flag(cmd, "set"); set != "" {
			parts = append(parts, "--set "+set)
		} else {
			parts = append(parts, "the paper's training settings")
		}
		if mode == "authors-code" {
			parts = append(parts, "the authors' trained models where they published them")
		}
		st := strings.Join(parts, ", ")
		if only := flag(cmd, "only"); only != "" {
			for _, n := range strings.Split(only, ",") {
				out[n] = st
			}
		} else {
			def = st
		}
	}
	if def != "" {
		out[""] = def
	}
	return out, nil
}

// switches lists the authors'-code mode's switches with their provenance (experiment.Switches), and, where
// replay-only results are given, the headline counts with and without the fitted switches.
func (b *builder) switches() error {
	s := b.d.add(&Section{Title: "The authors'-code mode's switches", Label: "setup:switches", Level: 2})
	s.para(T("Every switch of the authors'-code mode, the key that sets it (eccco --set KEY=VALUE) and where its value comes from: "),
		I("replayed"), T(" from the authors' code at the file and line given, "), I("inferred"), T(" from their code and data together, or "),
		I("fitted"), T(" to the published numbers where their code does not record the value. A fitted switch is not evidence of what their code did; the replay-only results switch the fitted ones off."))
	var md strings.Builder
	md.WriteString("| Switch | Provenance | Authors' code | Replay only | Source |\n|---|---|---|---|---|\n")
	dss := ourDatasets(b.in.Results.Cells)
	for _, sw := range experiment.Switches() {
		on, err := switchOn(sw, dss, false)
		if err != nil {
			return err
		}
		ro, err := switchOn(sw, dss, true)
		if err != nil {
			return err
		}
		fmt.Fprintf(&md, "| %s | %s | %s | %s | %s |\n", sw.Key, sw.Provenance, on, ro, strings.ReplaceAll(sw.Source, "|", "/"))
	}
	if t := tableFromMarkdown(md.String(), Inline{T("The switches of the authors'-code mode and their provenance (experiment.Switches). Files are ECCCo.jl's at d0ada1d unless another commit or package is named; 78925f6 is its final-runs commit (its src/ and models/ are d0ada1d's, its experiment scripts differ in places); CE.jl is CounterfactualExplanations.jl at 4c34c2a, the version 78925f6's Manifest pins. The columns Authors' code and Replay only say where each switch is on in those result sets: the mode's settings per data set, and for replay only the same with the fitted switches off (on the data sets it reran; the others keep the authors'-code cells).")}, "tab:switches", nil); t != nil {
		t.Size = `\footnotesize`
		t.Long = true // taller than a page: it breaks across pages rather than run into the footer
		t.Columns[1].Align, t.Columns[2].Align, t.Columns[3].Align = "l", `>{\raggedright\arraybackslash}p{2.2cm}`, `>{\raggedright\arraybackslash}p{2.2cm}`
		t.Columns[4].Align = `>{\raggedright\arraybackslash}p{7cm}` // the sources wrap within the text width
		s.add(t)
	}
	ro := b.in.ReplayOnly
	if ro == nil || b.in.Published == nil {
		s.para(T("No replay-only results were given (eccco report --replay-only DIR): the counts of this report include the fitted switches."))
		return nil
	}
	with := compare.CompareWithBounds(b.in.Results.Cells, b.in.Published, b.in.Results.Bounds).Counts()
	without := compare.CompareWithBounds(ro.Cells, b.in.Published, ro.Bounds).Counts()
	s.para(T("With the fitted switches (the results of this report): "), T(WithinText(with)), T(". Replay-only (fitted switches off; "), T(displayPath(ro.Dir)), T("): "), T(WithinText(without)), T(". The fitted switches' effect, per data set:"))
	byDS := func(cells []compare.Cell, bounds benchmark.UncertaintyBounds) map[string]compare.WithinGroup {
		out := map[string]compare.WithinGroup{}
		for _, g := range compare.WithinBy(compare.CompareWithBounds(cells, b.in.Published, bounds).Rows, func(r compare.ComparedCell) string { return r.Dataset }) {
			out[g.Name] = g
		}
		return out
	}
	w, wo := byDS(b.in.Results.Cells, b.in.Results.Bounds), byDS(ro.Cells, ro.Bounds)
	t := &Table{Caption: Inline{T("Cells within the published tolerance (rounding-aware) with the fitted switches and without them (replay only), per data set.")},
		Label: "tab:fitted", Columns: []Column{{"Data set", "l"}, {"Cells", "r"}, {"With the fitted switches", "r"}, {"Replay only", "r"}, {"Difference", "r"}}}
	for _, ds := range ourDatasets(b.in.Results.Cells) {
		a, ok := w[ds]
		if !ok {
			continue
		}
		z := wo[ds]
		t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: datasetTitle(ds)}, {Text: strconv.Itoa(a.Cells)}, {Text: share(a.Rounding, a.Cells)}, {Text: share(z.Rounding, z.Cells)}, {Text: fmt.Sprintf("%+d", a.Rounding-z.Rounding)}}})
	}
	t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: "all", Bold: true}, {Text: strconv.Itoa(with.All.Cells)}, {Text: share(with.All.Within, with.All.Cells)}, {Text: share(without.All.Within, without.All.Cells)}, {Text: fmt.Sprintf("%+d", with.All.Within-without.All.Within)}}})
	s.add(t)
	kept := b.replayNotRerun()
	most, mostGain := "", 0
	for _, ds := range ourDatasets(b.in.Results.Cells) {
		if _, ok := w[ds]; !ok || slices.Contains(kept, datasetTitle(ds)) {
			continue
		}
		if g := w[ds].Rounding - wo[ds].Rounding; g > mostGain {
			most, mostGain = ds, g
		}
	}
	if most != "" {
		txt := fmt.Sprintf("Net, the fitted switches put %d more cells within the tolerance, %d of them on %s: cells whose agreement rests on values read off the published numbers, not on the authors' code.", with.All.Within-without.All.Within, mostGain, datasetTitle(most))
		if len(kept) > 0 {
			txt += fmt.Sprintf(" %s %s the same cells in both sets: not rerun without the fitted switches, so what those switches do there is not measured.", joinWords(kept), plural(len(kept), "has", "have"))
		}
		s.para(T(txt))
	}
	return nil
}

// secondSeed compares the results under a second seed with the main ones, cell by cell
// (compare.SeedShifts).
func (b *builder) secondSeed(s *Section) {
	sec := b.in.SecondSeed
	sh := compare.SeedShifts(b.in.Results.Cells, sec.Cells, b.in.Published)
	var ds []string
	for _, d := range ourDatasets(sec.Cells) {
		ds = append(ds, datasetTitle(d))
	}
	runs := 0
	for _, c := range sec.Cells {
		runs = max(runs, c.Runs)
	}
	a := sh.All
	s.para(T(fmt.Sprintf("The same mode under a second seed (%s: %s, up to %d runs), against the main results on the same data sets. The seed generates the synthetic data that eccco generates (all but Linearly Separable, which is the authors' own draw), splits and subsamples the tabular data, draws the factuals and targets, trains REVISE's VAE and ECCCo+'s PCA and seeds the SGLD samples; the models are the authors' published ones under either seed. ", displayPath(sec.Dir), joinWords(ds), runs)),
		T(fmt.Sprintf("Of the %d cells both have, %s differ between the two seeds by |z| > %g (%s), where %.2f %% would by chance were both estimating the same means. ", a.Cells, share(a.Differ, a.Cells), compare.ZThreshold, compare.SeedZRule, 100*compare.ChanceShare())),
		T(fmt.Sprintf("Against the published numbers, %s of their published cells are within the tolerance under the main seed and %s under the second; %d leave the tolerance and %d enter it. ", share(a.WithinFirst, a.Published), share(a.WithinSecond, a.Published), a.Left, a.Entered)),
		T("The sd of the run means measures how runs vary under one seed; what the seed shares across runs (REVISE's VAE above all) moves every run mean together, so the difference two seeds make can exceed it, and part of what the comparison reads as significant is the seed."))
	t := &Table{Caption: Inline{T("What a second seed moves, per generator: the cells both seeds have, those that differ between the seeds by |z| > 3, and those of the published cells that change side of the tolerance.")},
		Label: "tab:seed", Columns: []Column{{"Generator", "l"}, {"Cells", "r"}, {"Differ (|z| > 3)", "r"}, {"Leave the tolerance", "r"}, {"Enter it", "r"}}}
	for _, g := range append(sh.ByGenerator, a) {
		t.Rows = append(t.Rows, Row{Cells: []Cell{{Text: g.Name, Bold: g.Name == "all"}, {Text: strconv.Itoa(g.Cells)}, {Text: share(g.Differ, g.Cells)}, {Text: strconv.Itoa(g.Left)}, {Text: strconv.Itoa(g.Entered)}}})
	}
	s.add(t)
	dt := &Table{Caption: Inline{T("What a second seed moves, per data set: the cells both seeds have, those that differ by |z| > 3, and the published cells within the tolerance under each seed.")},
		Label: "tab:seed-datasets", Columns: []Column{{"Data set", "l"}, {"Cells", "r"}, {"Differ (|z| > 3)", "r"}, {"Within, main seed", "r"}, {"Within, second seed", "r"}}}
	for _, g := range append(sh.ByDataset, a) {
		name := g.Name
		if name != "all" {
			name = datasetTitle(name)
		}
		dt.Rows = append(dt.Rows, Row{Cells: []Cell{{Text: name, Bold: g.Name == "all"}, {Text: strconv.Itoa(g.Cells)}, {Text: share(g.Differ, g.Cells)}, {Text: share(g.WithinFirst, g.Published)}, {Text: share(g.WithinSecond, g.Published)}}})
	}
	s.add(dt)
	if len(sh.ByDataset) > 1 {
		top := slices.MaxFunc(sh.ByDataset, func(x, y compare.SeedGroup) int { return x.Differ*y.Cells - y.Differ*x.Cells })
		s.para(T(fmt.Sprintf("%s moves most: %s of its cells differ between the seeds, and %d of its %d published cells are within the tolerance under the main seed against %d under the second.",
			datasetTitle(top.Name), share(top.Differ, top.Cells), top.WithinFirst, top.Published, top.WithinSecond)))
	}
}

// replayNotRerun names the data sets whose replay-only cells are the main results' own, every one of them
// equal: they were not rerun without the fitted switches.
func (b *builder) replayNotRerun() []string {
	ro := b.in.ReplayOnly
	if ro == nil {
		return nil
	}
	type key struct{ d, s, m, g, metric string }
	main := map[key]compare.Cell{}
	for _, c := range b.in.Results.Cells {
		main[key{c.Dataset, c.Subset, c.Model, c.Generator, c.Metric}] = c
	}
	rerun, has := map[string]bool{}, map[string]bool{}
	for _, c := range ro.Cells {
		has[c.Dataset] = true
		m, ok := main[key{c.Dataset, c.Subset, c.Model, c.Generator, c.Metric}]
		if !ok || !(m.Mean == c.Mean || math.IsNaN(m.Mean) && math.IsNaN(c.Mean)) || !(m.SD == c.SD || math.IsNaN(m.SD) && math.IsNaN(c.SD)) || m.Runs != c.Runs {
			rerun[c.Dataset] = true
		}
	}
	var kept []string
	for _, ds := range ourDatasets(b.in.Results.Cells) {
		if has[ds] && !rerun[ds] {
			kept = append(kept, datasetTitle(ds))
		}
	}
	return kept
}

// switchOn says where a switch is on in the authors'-code mode over the data sets dss (replayOnly: with
// the fitted switches off, as the replay-only results were run): "on", "off" or the data sets it is on.
func switchOn(sw experiment.Switch, dss []string, replayOnly bool) (string, error) {
	var on []string
	for _, ds := range dss {
		st, err := experiment.AuthorsCode.Settings(ds)
		if err != nil {
			return "", err
		}
		v, err := st.IsOn(sw.Key)
		if err != nil {
			return "", err
		}
		if v && !(replayOnly && sw.Provenance == experiment.Fitted) {
			on = append(on, datasetTitle(ds))
		}
	}
	switch len(on) {
	case 0:
		return "off", nil
	case len(dss):
		return "on", nil
	}
	return "on: " + joinWords(on), nil
}

// paperModeWithin is the share of the published cells within the tolerance under the paper's equations,
// and the authors'-code results' share on the same data sets ("" where either is missing).
func (b *builder) paperModeWithin() (paperMode, authors string) {
	if b.in.PaperMode == nil || b.in.Published == nil || b.cmp == nil {
		return "", ""
	}
	pm := compare.CompareWithBounds(b.in.PaperMode.Cells, b.in.Published, b.in.PaperMode.Bounds)
	r, _ := compare.WithinCounts(pm.Rows)
	dss := ourDatasets(b.in.PaperMode.Cells)
	var same []compare.ComparedCell
	for _, row := range b.cmp.Rows {
		if slices.Contains(dss, row.Dataset) {
			same = append(same, row)
		}
	}
	ar, _ := compare.WithinCounts(same)
	return share(r, len(pm.Rows)), share(ar, len(same)) + " on the same data sets"
}

// modeVerdict is one result set's verdicts on the claims, for the abstract and the conclusion.
type modeVerdict struct {
	Name                             string
	Holds, Partly, DoesNot, Measured int
	HoldNames, PartlyNames, NotNames []string
}

// modeVerdicts are the verdicts of the result sets that stand for a mode: the authors' code, its replay
// only and the paper's equations (not the second seed, the rounded copy or the published tables).
func (b *builder) modeVerdicts() []modeVerdict {
	if b.findings == nil {
		return nil
	}
	want := map[string]bool{b.modeName(b.in.Results): true}
	for _, r := range []*Results{b.in.ReplayOnly, b.in.PaperMode} {
		if r != nil {
			want[b.modeName(r)] = true
		}
	}
	var out []modeVerdict
	for i, name := range b.findings.Sources {
		if !want[name] {
			continue
		}
		out = append(out, verdictsOf(*b.findings, i, name))
	}
	return out
}

// verdictsOf counts source i's verdicts in f.
func verdictsOf(f compare.Findings, i int, name string) modeVerdict {
	mv := modeVerdict{Name: "the " + name}
	for _, c := range f.Claims {
		fd := c.Findings[i]
		q := "“" + c.ID + "”"
		switch fd.Verdict {
		case compare.VerdictHolds:
			mv.Holds++
			mv.HoldNames = append(mv.HoldNames, q)
		case compare.VerdictPartly:
			mv.Partly++
			mv.PartlyNames = append(mv.PartlyNames, q)
		case compare.VerdictDoesNot:
			mv.DoesNot++
			mv.NotNames = append(mv.NotNames, q)
		}
		if fd.Verdict != compare.VerdictNone {
			mv.Measured++
		}
	}
	return mv
}

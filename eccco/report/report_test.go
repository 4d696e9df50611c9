package report

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/internal/reportmark"
)

// tiny is a hand-made benchmark of one data set, model and two generators, with published numbers
// chosen so that some cells lie inside and some outside the published mean ± max(3 sd, 0.015):
//
//	ECCCo unfaithfulness  ours 1.25, paper 1.00 ± 0.10: |Δ| 0.25 ≤ 0.30  inside
//	ECCCo cost            ours 1.40, paper 1.00 ± 0.10: |Δ| 0.40 > 0.30   outside
//	Wachter cost          ours 0.512, paper 0.50 ± 0.00: |Δ| 0.012 ≤ 0.015 inside (rounding floor)
//	Wachter validity      ours 0.98, paper 1.00 ± 0.00: |Δ| 0.02 > 0.015  outside
func tiny() Inputs {
	cell := func(gen, metric string, mean, sd float64) compare.Cell {
		return compare.Cell{Dataset: "moons", Subset: "all", Model: "MLP", Generator: gen, Metric: metric, Mean: mean, SD: sd, Runs: 5}
	}
	pub := func(gen, metric string, mean, sd float64) compare.Published {
		return compare.Published{Dataset: "moons", Subset: "all", Model: "MLP", Generator: gen, Metric: metric, Mean: mean, SD: sd}
	}
	cells := []compare.Cell{
		cell("ECCCo", "unfaithfulness", 1.25, 0.05), cell("ECCCo", "cost", 1.40, 0.02),
		cell("Wachter", "cost", 0.512, 0.01), cell("Wachter", "validity", 0.98, 0.01),
		cell("Wachter", "unfaithfulness", 1.50, 0.03),
	}
	published := []compare.Published{
		pub("ECCCo", "unfaithfulness", 1.00, 0.10), pub("ECCCo", "cost", 1.00, 0.10),
		pub("Wachter", "cost", 0.50, 0.00), pub("Wachter", "validity", 1.00, 0.00),
		pub("Wachter", "unfaithfulness", 1.40, 0.05),
	}
	return Inputs{
		Results:     &Results{Dir: "hand-made", Cells: cells},
		Published:   published,
		Performance: []Perf{{Dataset: "moons", Model: "mlp", Accuracy: 0.95, Precision: 0.94, F1: 0.93, PaperAccuracy: 1, PaperPrecision: 1, PaperF1: 1, HasPaper: true, Epochs: 5}},
		Stages:      []Stage{{Name: "data", Seconds: 3, Status: "ok"}, {Name: "bench", Seconds: 125, Status: "ok"}},
		Provenance:  Provenance{Commit: "0123456789ab", Backend: "go", Machine: Machine{CPU: "Test CPU", Cores: 2, GoVersion: "go1.26.8", OS: "linux", Arch: "amd64"}, Profile: "test"},
	}
}

func findTable(t *testing.T, d *Document, label string) *Table {
	t.Helper()
	for _, s := range d.Sections {
		for _, b := range s.Blocks {
			if tb, ok := b.(*Table); ok && tb.Label == label {
				return tb
			}
		}
	}
	t.Fatalf("no table %s", label)
	return nil
}

// cellOf returns our cell of a generator and metric column in a result table.
func cellOf(t *testing.T, tb *Table, gen, metric string) Cell {
	t.Helper()
	col := -1
	for i, c := range tb.Columns {
		if strings.HasPrefix(strings.ToLower(c.Head), metric) {
			col = i
		}
	}
	for _, r := range tb.Rows {
		if !r.Sub && r.Cells[1].Text == gen {
			return r.Cells[col]
		}
	}
	t.Fatalf("no row %s", gen)
	return Cell{}
}

func TestMarksCellsOutsideThreeSD(t *testing.T) {
	d, err := Build(tiny())
	if err != nil {
		t.Fatal(err)
	}
	tb := findTable(t, d, "tab:results-moons")
	for _, c := range []struct {
		gen, metric string
		marked      bool
	}{{"ECCCo", "unfaithfulness", false}, {"ECCCo", "cost", true}, {"Wachter", "cost", false}, {"Wachter", "validity", true}} {
		if got := cellOf(t, tb, c.gen, c.metric); got.Marked != c.marked {
			t.Errorf("%s %s (%s): marked %v, want %v", c.gen, c.metric, got.Text, got.Marked, c.marked)
		}
	}
	tex := d.LaTeX()
	md := d.Markdown("", "")
	if !strings.Contains(tex, `\outside{1.40 $\pm$ 0.02}`) || strings.Contains(tex, `\outside{1.25`) {
		t.Errorf("LaTeX: want 1.40 marked and 1.25 not")
	}
	if !strings.Contains(md, "1.40 ± 0.02 †") || strings.Contains(md, "1.25 ± 0.05 †") {
		t.Errorf("Markdown: want 1.40 marked and 1.25 not")
	}
	// The published line sits under ours.
	if !strings.Contains(md, "| *1.00 ± 0.10* |") {
		t.Errorf("Markdown lacks the published line")
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"ECCCo (no EBM)":        "ECCCo (no EBM)",
		"λ":                     `$\lambda$`,
		"100 %":                 `100~\%`,
		"energy_penalty":        `energy\_penalty`,
		"a & b # c $ d":         `a \& b \# c \$ d`,
		`x\y {z} ^ ~`:           `x\textbackslash{}y \{z\} \textasciicircum{} \textasciitilde{}`,
		"0.44 ± 0.03":           `0.44 $\pm$ 0.03`,
		"±−":                    `$\pm-$`,
		"$±":                    `\$$\pm$`,
		"y⁺ ≤ 3·σ, ρ ≈ 1":       `y$^{+}$ $\le$ 3$\cdot\sigma$, $\rho$ $\approx$ 1`,
		"German Credit’s":       `German Credit's`,
		"café":                  "café",
		"q̂ = 0.99, q̂σ":        `$\hat{q}$ = 0.99, $\hat{q}\sigma$`,
		"\u0302 alone":          "? alone",
		"bench --sampling, 1–2": `bench -{}-sampling, 1--2`,
		"✓ unknown: \u4e00":     `$\checkmark$ unknown: ?`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := escapeCode("--mode a,b"); got != `-{}-mode a,\allowbreak{}b` {
		t.Errorf("escapeCode = %q", got)
	}
}

var numberRE = regexp.MustCompile(`−?-?\d+(\.\d+)?`)

// layoutRE matches LaTeX layout commands with numeric arguments (box widths, vertical space, column
// separation), which only the LaTeX version has.
var layoutRE = regexp.MustCompile(`\\(vspace\*?\{[^}]*\}|setlength\{\\tabcolsep\}\{[^}]*\}|parbox\{[^}]*\}|begin\{minipage\}\{[^}]*\}|multicolumn\{\d+\})|p\{[0-9.]+cm\}`)

// floatNumberRE matches the Markdown version's "Table R3. " and "Figure R1. ".
var floatNumberRE = regexp.MustCompile(`(Table|Figure) ` + FloatPrefix + `\d+\. `)

// numbers lists the numbers of a rendering, line by line, minus lines that skip rejects.
func numbers(s string, skip func(line string) bool) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if skip(line) {
			continue
		}
		line = strings.ReplaceAll(layoutRE.ReplaceAllString(line, ""), "$-$", "-")
		for _, n := range numberRE.FindAllString(line, -1) {
			out = append(out, strings.Replace(n, "−", "-", 1))
		}
	}
	return out
}

func TestMarkdownAndLaTeXCarryTheSameNumbers(t *testing.T) {
	quick := tiny()
	quick.Banner = QuickBanner(quick.Performance)
	for _, in := range []Inputs{tiny(), quick} {
		d, err := Build(in)
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := strings.Cut(d.LaTeX(), `\begin{document}`)
		texNums := numbers(body, func(l string) bool { return strings.Contains(l, `\includegraphics`) })
		// The Markdown version numbers its tables and figures in the text (LaTeX with \thetable).
		md := floatNumberRE.ReplaceAllString(d.Markdown("", ""), "")
		mdNums := numbers(md, func(l string) bool { return strings.HasPrefix(l, "![") })
		if !slices.Equal(texNums, mdNums) {
			t.Errorf("numbers differ:\nLaTeX    %v\nMarkdown %v", texNums, mdNums)
		}
		for _, want := range []string{"1.25", "1.40", "0.51", "0.950", "−0.050"} {
			if !slices.Contains(mdNums, strings.TrimPrefix(want, "+")) && !strings.Contains(md, want) {
				t.Errorf("Markdown lacks %s", want)
			}
		}
	}
}

func TestQuickBanner(t *testing.T) {
	in := tiny()
	in.Banner = QuickBanner(in.Performance)
	if in.Banner != "QUICK PROFILE — 5-epoch models trained, not the paper's protocol" {
		t.Fatalf("banner %q", in.Banner)
	}
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	tex := d.LaTeX()
	if !strings.Contains(tex, `\fancyhead[C]{\small\bfseries\textcolor{outside}{QUICK PROFILE --- 5-epoch models`) {
		t.Error("LaTeX: no running header with the banner")
	}
	if !strings.Contains(d.Markdown("", ""), "> **QUICK PROFILE — 5-epoch models trained, not the paper's protocol**") {
		t.Error("Markdown: no banner")
	}
	if QuickBanner(nil) != "QUICK PROFILE — not the paper's protocol" {
		t.Error("banner without performance")
	}
}

func TestWriteNeverOverwritesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	d, err := Build(tiny())
	if err != nil {
		t.Fatal(err)
	}
	opts := WriteOptions{Dir: filepath.Join(dir, "report"), Markdown: filepath.Join(dir, "report.md")}
	if err := os.WriteFile(opts.Markdown, []byte("my own notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(d, opts); !errors.Is(err, ErrNotGenerated) {
		t.Fatalf("foreign Markdown: err %v, want ErrNotGenerated", err)
	}
	if _, err := os.Stat(opts.TeXPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused write wrote the LaTeX source")
	}
	opts.Replace = true
	if _, err := Write(d, opts); err != nil {
		t.Fatal(err)
	}
	opts.Replace = false
	if _, err := Write(d, opts); err != nil {
		t.Fatalf("rewriting its own files: %v", err)
	}
	for _, p := range []string{opts.TeXPath(), opts.Markdown} {
		raw, _ := os.ReadFile(p)
		first, _, _ := strings.Cut(string(raw), "\n")
		if !strings.Contains(first, Marker) {
			t.Errorf("%s: first line %q lacks the marker", p, first)
		}
	}
	// A PDF not made by the report is refused before TeX runs.
	pdf := filepath.Join(dir, "other.pdf")
	_ = os.WriteFile(pdf, []byte("%PDF-1.5 someone else's\n"), 0o644)
	if !TeXAvailable() {
		return
	}
	if _, err := Compile(context.Background(), opts.TeXPath(), pdf, false); !errors.Is(err, ErrNotGenerated) {
		t.Errorf("foreign PDF: err %v, want ErrNotGenerated", err)
	}
}

func TestCompileWithoutTeX(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Compile(context.Background(), "x.tex", filepath.Join(t.TempDir(), "x.pdf"), false)
	if !errors.Is(err, ErrNoTeX) {
		t.Fatalf("err %v, want ErrNoTeX", err)
	}
}

func TestCompiles(t *testing.T) {
	if !TeXAvailable() {
		t.Skip("pdflatex is not on PATH: install the packages of scripts/texlive-packages.txt to run this test")
	}
	dir := t.TempDir()
	in := tiny()
	in.Banner = QuickBanner(in.Performance)
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Write(d, WriteOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	pdf := filepath.Join(dir, "out.pdf")
	pages, err := Compile(context.Background(), w.TeX, pdf, false)
	if err != nil {
		t.Fatal(err)
	}
	// Title page, contents, then the sections: more than two pages.
	if pages <= 2 {
		t.Errorf("%d pages, want more than 2", pages)
	}
	if out, err := exec.Command("pdfinfo", pdf).Output(); err == nil {
		m := regexp.MustCompile(`Pages:\s+(\d+)`).FindSubmatch(out)
		if n, _ := strconv.Atoi(string(m[1])); m == nil || n != pages {
			t.Errorf("pdfinfo says %s pages, the log %d", m[1], pages)
		}
	}
	if ok, _ := pdfGenerated(pdf); !ok {
		t.Error("the PDF does not carry the marker")
	}
	// The PDF's keywords carry the source's content key, as pdfTeX wrote them.
	if !reportmark.SameContent(w.TeX, pdf) {
		k1, err1 := reportmark.FromTeX(w.TeX)
		k2, err2 := reportmark.FromPDF(pdf)
		t.Errorf("the PDF's content key %q (%v) is not the source's %q (%v)", k2, err2, k1, err1)
	}
	// eccco-go.tex, out.pdf, the findings (FindingsFile) and the figures the report draws itself (figures/): no aux files.
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"eccco-go.tex", "figures", FindingsFile, "out.pdf"}) {
		t.Errorf("files beside the source: %v", names)
	}
}

func TestReadCellsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cells := tiny().Results.Cells
	if err := WriteTables(dir, cells); err != nil {
		t.Fatal(err)
	}
	res, err := LoadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != len(cells) {
		t.Fatalf("%d cells, want %d", len(res.Cells), len(cells))
	}
	for i := range cells {
		if res.Cells[i].Mean != cells[i].Mean || res.Cells[i].Generator != cells[i].Generator {
			t.Errorf("cell %d: %+v, want %+v", i, res.Cells[i], cells[i])
		}
	}
	if _, err := LoadResults(t.TempDir()); !errors.Is(err, ErrNoResults) {
		t.Errorf("empty directory: err %v, want ErrNoResults", err)
	}
}

func TestReadStages(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stages.tsv")
	_ = os.WriteFile(p, []byte("stage\tseconds\tstatus\ndata\t2\tok\nbench\t61.5\tskipped (up to date)\n"), 0o644)
	st, err := ReadStages(p)
	if err != nil || len(st) != 2 || st[1] != (Stage{Name: "bench", Seconds: 61.5, Status: "skipped (up to date)"}) {
		t.Fatalf("stages %v, %v", st, err)
	}
	// reproduce.sh's CPU column.
	_ = os.WriteFile(p, []byte("stage\tseconds\tstatus\tcpu_seconds\ndata\t2\tok\t0.4\nbench\t61.5\tok\t120.25\n"), 0o644)
	st, err = ReadStages(p)
	if err != nil || len(st) != 2 || st[1] != (Stage{Name: "bench", Seconds: 61.5, Status: "ok", CPUSeconds: 120.25, HasCPU: true}) {
		t.Fatalf("stages with CPU %v, %v", st, err)
	}
	_ = os.WriteFile(p, []byte("stage\tseconds\tstatus\tcpu_seconds\ndata\t2\tok\t-1\n"), 0o644)
	if _, err := ReadStages(p); err == nil {
		t.Error("negative CPU seconds were accepted")
	}
	_ = os.WriteFile(p, []byte("data 2 ok\n"), 0o644)
	if _, err := ReadStages(p); err == nil {
		t.Error("a line without tabs was accepted")
	}
}

// The committed results and model performance build into a report with every data set's table.
func TestCommittedResults(t *testing.T) {
	res, err := LoadResults(filepath.Join("..", "..", "paper", "results"))
	if err != nil {
		t.Skip("no committed results here:", err)
	}
	perf, err := ReadPerformance(filepath.Join("..", "..", "paper", "model-performance.csv"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := compare.ReadPublished(filepath.Join("..", "..", "paper", "published-results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(Inputs{Results: res, Performance: perf, Published: pub})
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range ourDatasets(res.Cells) {
		findTable(t, d, "tab:results-"+ds)
	}
	if res.Recorded == "" {
		t.Error("the comparison's provenance line was not read")
	}
	// The compute section says where CPU time is and is not recorded: without stages.tsv, not by this
	// report's run; with reproduce.sh's CPU column, in the provenance appendix.
	md := d.Markdown("", "")
	if !strings.Contains(md, "The benchmarks do not record CPU time by data set (reproduce.sh records each stage's CPU time in stages.tsv; this report was not built by it)") {
		t.Error("the compute section does not say where CPU time is recorded")
	}
	if testing.Short() {
		t.Skip("the report with stage CPU times is not built again (a second Build of the committed results, seconds)")
	}
	d, err = Build(Inputs{Results: res, Performance: perf, Published: pub, Stages: []Stage{{Name: "bench", Seconds: 60, Status: "ok", CPUSeconds: 110, HasCPU: true}}})
	if err != nil {
		t.Fatal(err)
	}
	if md := d.Markdown("", ""); !strings.Contains(md, "the CPU time of each stage of the run that built this report is in the provenance appendix") {
		t.Error("with stage CPU times the compute section does not point to them")
	}
}

// The second seed's section and the fitted switches' table, on tiny()'s hand-counted cells. Second seed:
// ECCCo's unfaithfulness 1.25 → 1.45 (z = 0.20/√(0.05²/5 + 0.05²/5) = 6.3: differs, and leaves the
// published 1.00 ± 0.30), Wachter's cost 0.512 → 0.510 (z = 0.32), the rest alike: 1 of 5 differ, 3 → 2
// within, 1 leaves. Replay only: ECCCo's cost 1.40 → 1.20 enters the tolerance (3 → 4 of 5 within), and
// the claims table gains its column.
func TestSecondSeedAndReplayOnlySections(t *testing.T) {
	in := tiny()
	with := func(cells []compare.Cell, gen, metric string, mean float64) []compare.Cell {
		out := slices.Clone(cells)
		for i := range out {
			if out[i].Generator == gen && out[i].Metric == metric {
				out[i].Mean = mean
			}
		}
		return out
	}
	second := with(with(in.Results.Cells, "ECCCo", "unfaithfulness", 1.45), "Wachter", "cost", 0.510)
	in.SecondSeed = &Results{Dir: "seed", Cells: second}
	in.ReplayOnly = &Results{Dir: "replay", Cells: with(in.Results.Cells, "ECCCo", "cost", 1.20)}
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	seed := findTable(t, d, "tab:seed")
	last := seed.Rows[len(seed.Rows)-1].Cells
	if got := []string{last[0].Text, last[1].Text, last[2].Text, last[3].Text, last[4].Text}; !slices.Equal(got, []string{"all", "5", "1 of 5 (20 %)", "1", "0"}) {
		t.Errorf("second seed, all: %q, want all, 5 cells, 1 of 5 differ, 1 leaves, 0 enter", got)
	}
	fitted := findTable(t, d, "tab:fitted")
	row := fitted.Rows[0].Cells
	if got := []string{row[0].Text, row[2].Text, row[3].Text, row[4].Text}; !slices.Equal(got, []string{"Moons", "3 of 5 (60 %)", "4 of 5 (80 %)", "-1"}) {
		t.Errorf("fitted switches, moons: %q, want Moons, 3 of 5, 4 of 5, -1", got)
	}
	claims := findTable(t, d, "tab:claims")
	var heads []string
	for _, c := range claims.Columns {
		heads = append(heads, c.Head)
	}
	if !slices.ContainsFunc(heads, func(h string) bool { return strings.Contains(h, "replay only") }) {
		t.Errorf("the claims table has no replay-only column: %q", heads)
	}
	md := d.Markdown(".", ".")
	if !strings.Contains(md, "A second seed moves 1 of 5 published cells across the tolerance") {
		t.Errorf("the conclusion does not say what the second seed moves")
	}
}

// Replay-only cells equal to the main ones, every one, are named as not rerun (replayNotRerun), and the
// abstract says so beside the replay-only count; one cell that differs makes the data set rerun.
func TestReplayOnlyNotRerun(t *testing.T) {
	in := tiny()
	in.ReplayOnly = &Results{Dir: "replay", Cells: slices.Clone(in.Results.Cells)}
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if md := d.Markdown(".", "."); !strings.Contains(md, "(Moons not rerun: their cells are the ones with the fitted switches)") {
		t.Errorf("the abstract does not say that Moons was not rerun without the fitted switches")
	}
	in.ReplayOnly.Cells[0].SD += 1e-9
	d, err = Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if md := d.Markdown(".", "."); strings.Contains(md, "not rerun") {
		t.Errorf("a data set with a cell that differs is said not to be rerun")
	}
}

// The appendix on what differs from the paper is the report's own text, not a quoted file: on tiny() both
// misses (ECCCo's cost, 0.40 above the published with z = 0.40/√(0.02²/5 + 0.10²/50) ≈ 24; Wachter's
// validity, 0.02 below with z ≈ −4.5) are unexplained (no known difference covers a moons MLP's cost or
// validity), one above and one below the published, and no known difference has a miss.
func TestDifferencesSection(t *testing.T) {
	d, err := Build(tiny())
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	found := false
	for _, s := range d.Sections {
		if s.Label != "diff" {
			continue
		}
		found = true
		for _, bl := range s.Blocks {
			switch bl := bl.(type) {
			case *Para:
				text.WriteString(bl.Text.Text() + "\n")
			case *List:
				for _, it := range bl.Items {
					text.WriteString("- " + it.Text() + "\n")
				}
			}
		}
	}
	if !found {
		t.Fatal("no section labelled diff")
	}
	got := text.String()
	for _, want := range []string{
		"how many of the 2 cells outside the tolerance",
		"The unfaithfulness metric's prior box (no cell outside the tolerance is put down to it here)",
		"Unexplained (2 cells outside the tolerance put down to it, where none of the above applies)",
		"Moons cost: 1 (1 above the published, 0 below) and Moons validity: 1 (0 above the published, 1 below)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the differences section lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Chance") {
		t.Errorf("a chance paragraph without a miss put down to chance:\n%s", got)
	}
}

// With CPU times in stages.tsv the stage table gains a CPU column and the section sums them: data 3 s wall,
// 5 s CPU; bench 125 s wall, 240 s CPU: 245 s = 0.07 CPU-hours in 128 s = 0.04 hours, 245/128 = 1.9 cores.
func TestStagesCPUTime(t *testing.T) {
	in := tiny()
	in.Stages = []Stage{{Name: "data", Seconds: 3, Status: "ok", CPUSeconds: 5, HasCPU: true}, {Name: "bench", Seconds: 125, Status: "ok", CPUSeconds: 240, HasCPU: true}}
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	md := d.Markdown("", "")
	for _, want := range []string{"The run took 0.07 CPU-hours in 0.04 hours of wall time (1.9 of the machine's 2 cores busy on average).", "| CPU time |", "| bench | ok | 2 min 05 s | 4 min 00 s |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if md := mustBuild(t, tiny()).Markdown("", ""); strings.Contains(md, "CPU-hours in") || strings.Contains(md, "| CPU time |") {
		t.Error("stages without CPU times got a CPU column or sum")
	}
}

// The content key is the same for two builds of the same content by other commits, machines, backends
// and runs of reproduce.sh (the rows naming the build, the stage timings, the benchmarks' wall times and
// the commit that recorded the results differ, and the key is printed in the source), and differs when
// a number, a figure file, the profile or an input does.
func TestContentKey(t *testing.T) {
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// The same cells, recorded by two commits, with other wall times.
	dirA := t.TempDir()
	timings := func(dir, minutes string) {
		must(os.WriteFile(filepath.Join(dir, "timings.md"), []byte("Wall time by data set:\n\n| Data set | search (min) | total (min) |\n|---|---|---|\n| moons | "+minutes+" | "+minutes+" |\n"), 0o644))
	}
	timings(dirA, "3.1")
	at := func(dir, commit string) Inputs {
		in := tiny()
		in.Results = &Results{Dir: dir, Cells: slices.Clone(in.Results.Cells),
			Recorded: "tables written by eccco-go commit " + commit + " (protocol 12) from 1000 counterfactuals; moons: mode authors-code, seed 42"}
		return in
	}
	baseIn := at(dirA, "d4ca7e0bceb9 (the checkout's HEAD, with uncommitted changes)")
	base := mustBuild(t, baseIn)
	if !strings.HasPrefix(base.ContentKey, "sha256-") || len(base.ContentKey) != len("sha256-")+64 {
		t.Fatalf("content key %q", base.ContentKey)
	}
	tex := base.LaTeX()
	if lines := strings.SplitN(tex, "\n", 3); lines[1] != reportmark.TeXLine(base.ContentKey) {
		t.Errorf("second line %q, want the content key's", lines[1])
	}
	if !strings.Contains(tex, `\hypersetup{pdfkeywords={`+reportmark.PDFKeywords(base.ContentKey)+`}}`) {
		t.Error("the source does not give the PDF the content key")
	}
	other := at(dirA, "0123456789ab (the checkout's HEAD)")
	other.Provenance.Commit, other.Provenance.Dirty, other.Provenance.Backend = "fedcba987654", true, "xla:cpu"
	other.Provenance.Machine = Machine{CPU: "Other CPU", Cores: 16, GoVersion: "go1.27.3", OS: "linux", Arch: "arm64"}
	other.Stages = []Stage{{Name: "data", Seconds: 7, Status: "ok", CPUSeconds: 9, HasCPU: true}, {Name: "bench", Seconds: 3600, Status: "ok", CPUSeconds: 7000, HasCPU: true}}
	other.Provenance.Sources = [][2]string{{StagesSource, "runs/stages.tsv"}}
	o := mustBuild(t, other)
	timings(dirA, "9.9") // another run's wall times in the same directory
	o2 := mustBuild(t, other)
	for _, d := range []*Document{o, o2} {
		if d.LaTeX() == tex {
			t.Fatal("the build rows did not change the source: the test shows nothing")
		}
		if d.ContentKey != base.ContentKey {
			t.Errorf("another build of the same content: key %s, want %s", d.ContentKey, base.ContentKey)
		}
	}
	if strings.Contains(o.LaTeX(), "9.9") == strings.Contains(o2.LaTeX(), "9.9") {
		t.Error("the wall times are not in the source: the test shows nothing")
	}
	changed := map[string]func(in *Inputs){
		"a cell":      func(in *Inputs) { in.Results.Cells[0].Mean = 1.26 },
		"the profile": func(in *Inputs) { in.Provenance.Profile = "quick" },
		"an input":    func(in *Inputs) { in.Provenance.Sources = [][2]string{{"results", "elsewhere"}} },
		"the mode": func(in *Inputs) {
			in.Results.Recorded = strings.Replace(in.Results.Recorded, "authors-code", "paper", 1)
		},
	}
	for name, change := range changed {
		in := at(dirA, "d4ca7e0bceb9")
		change(&in)
		if k := mustBuild(t, in).ContentKey; k == base.ContentKey {
			t.Errorf("%s changed: the content key stayed %s", name, k)
		}
	}
	// A figure file's bytes are content too.
	figs := t.TempDir()
	in := tiny()
	in.FiguresDir = figs
	must(os.WriteFile(filepath.Join(figs, "fig1-motiv.png"), []byte("png, first drawing"), 0o644))
	k1 := mustBuild(t, in).ContentKey
	must(os.WriteFile(filepath.Join(figs, "fig1-motiv.png"), []byte("png, second drawing"), 0o644))
	if k2 := mustBuild(t, in).ContentKey; k1 == k2 {
		t.Error("another figure file: the content key stayed the same")
	}
}

func mustBuild(t *testing.T, in Inputs) *Document {
	t.Helper()
	d, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

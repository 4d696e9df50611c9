package report

import (
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

func agreeRow(gen string, factual int, unf, cost float64, valid bool, it int) benchmark.Row {
	return benchmark.Row{Dataset: "moons", Model: "mlp", Generator: gen, Run: 1, Factual: factual, Target: 1,
		Scores: metrics.Scores{Unfaithfulness: unf, Cost: cost, Valid: valid, Probability: 0.9}, Iterations: it}
}

func TestAgreementMarkdown(t *testing.T) {
	a := []benchmark.Row{
		agreeRow("Wachter", 3, 1.0, 2.0, true, 10),
		agreeRow("Wachter", 3, 0.5, 0.25, true, 10), // factual 3 drawn twice: matched by order
		agreeRow("Wachter", 7, 0.2, 1.0, false, 100),
		agreeRow("ECCCo", 9, 0.1, 0.1, true, 5), // only in a
	}
	b := []benchmark.Row{
		agreeRow("Wachter", 3, 1.0, 2.0, true, 10),
		agreeRow("Wachter", 3, 0.5004, 0.2, true, 10), // unf within 1e-3 (|Δ| = 4e-4 ≤ 1e-3·1); cost off by 0.05
		agreeRow("Wachter", 7, 0.2, 1.0, true, 100),   // validity flips
		agreeRow("REVISE", 1, 0.3, 0.3, true, 5),      // only in b
	}
	md := AgreementMarkdown(compare.Agree([2]string{"go", "xla"}, a, b, 0))
	for _, want := range []string{"3 counterfactuals in both (1 only in go, 1 only in xla)", "| cost | 3 | 2 (66.66 %) | 2 (66.66 %) | 0.05 |", "4 of 6"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// A published Ω that no valid counterfactual of our model can have (our bound, from q̂ = 0.9926 of ten
// classes: Ω ∈ [4.33, 5.56]) puts the uncertainty cell — and its "all" twin, through the published valid
// Ω — down to the calibration; a published Ω inside the bound (4.40, missed by 0.1) stays unexplained,
// and the other metrics of the model are untouched. The calibration section names both counts.
func TestCalibrationSection(t *testing.T) {
	bounds := benchmark.UncertaintyBounds{{Dataset: "fashion-mnist", Model: "MLP"}: {QHatMin: 0.9926, QHatMax: 0.9926, Min: 4.3335, Max: 5.5558, Runs: 1}}
	cells := []compare.Cell{
		{Dataset: "fashion-mnist", Subset: "valid", Model: "MLP", Generator: "ECCCo", Metric: "uncertainty", Mean: 4.33, SD: 0.001, Runs: 10},
		{Dataset: "fashion-mnist", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "uncertainty", Mean: 4.33, SD: 0.001, Runs: 10},
		{Dataset: "fashion-mnist", Subset: "valid", Model: "MLP", Generator: "Wachter", Metric: "uncertainty", Mean: 4.50, SD: 0.001, Runs: 10},
		{Dataset: "fashion-mnist", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 9, SD: 0.001, Runs: 10},
		{Dataset: "mnist", Subset: "valid", Model: "MLP", Generator: "ECCCo", Metric: "uncertainty", Mean: 0.2, SD: 0.001, Runs: 10},
	}
	pub := []compare.Published{
		{Dataset: "fashion-mnist", Subset: "valid", Model: "MLP", Generator: "ECCCo", Metric: "uncertainty", Mean: 2.91, SD: 0.01},
		{Dataset: "fashion-mnist", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "uncertainty", Mean: 2.89, SD: 0.02},
		{Dataset: "fashion-mnist", Subset: "valid", Model: "MLP", Generator: "Wachter", Metric: "uncertainty", Mean: 4.40, SD: 0.01},
		{Dataset: "fashion-mnist", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "cost", Mean: 1, SD: 0.01},
		{Dataset: "mnist", Subset: "valid", Model: "MLP", Generator: "ECCCo", Metric: "uncertainty", Mean: 0.86, SD: 0.00},
	}
	md := ComparisonMarkdown(compare.CompareWithBounds(cells, pub, bounds), "")
	if !strings.Contains(md, "| fashion-mnist | MLP | 0.9926 | 4.33–5.56 | 2.91–4.40 | 4.33–4.50 | 2 of 3 |") {
		t.Errorf("calibration section missing or wrong:\n%s", md)
	}
	if strings.Contains(ComparisonMarkdown(compare.Compare(cells, pub), ""), "## Calibration") {
		t.Error("a comparison without bounds has a calibration section")
	}
}

// The claims on hand-made cells: in mode A ECCCo (0.5) beats Wachter (0.9) and Schut (0.7) on
// unfaithfulness, is less plausible than Wachter (+0.2) and valid (0.95); in mode B Schut (0.3) is more
// faithful than ECCCo (0.6), which still beats Wachter (0.8), and ECCCo's validity is 0.5.
func TestModesMarkdown(t *testing.T) {
	cell := func(gen, metric string, mean float64) compare.Cell {
		return compare.Cell{Dataset: "moons", Subset: "all", Model: "MLP", Generator: gen, Metric: metric, Mean: mean}
	}
	a := []compare.Cell{cell("ECCCo", "unfaithfulness", 0.5), cell("Wachter", "unfaithfulness", 0.9), cell("Schut", "unfaithfulness", 0.7),
		cell("ECCCo", "implausibility", 1.2), cell("Wachter", "implausibility", 1.0), cell("ECCCo", "validity", 0.95)}
	b := []compare.Cell{cell("ECCCo", "unfaithfulness", 0.6), cell("Wachter", "unfaithfulness", 0.8), cell("Schut", "unfaithfulness", 0.3),
		cell("ECCCo", "validity", 0.5)}
	mc, err := compare.CompareModes([]string{"A", "B"}, a, b)
	if err != nil {
		t.Fatal(err)
	}
	md := ModesMarkdown(mc)
	for _, want := range []string{"| ECCCo more faithful than Wachter | 1 of 1 (100 %) | 1 of 1 (100 %) |", "| moons | MLP | −0.40 / +0.20, rank 1 of 3, valid 0.95 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// A small comparison: circles MLP Ensemble, where ECCCo − Wachter unfaithfulness is +0.038 in ours and
// −0.06 in the paper's, and REVISE − Wachter implausibility agrees in sign.
func TestComparisonMarkdown(t *testing.T) {
	cell := func(g, metric string, mean float64) compare.Cell {
		return compare.Cell{Dataset: "circles", Subset: "all", Model: "MLP Ensemble", Generator: g, Metric: metric, Mean: mean, SD: 0.01, Runs: 5}
	}
	pubOf := func(g, metric string, mean, sd float64) compare.Published {
		return compare.Published{Dataset: "circles", Subset: "all", Model: "MLP Ensemble", Generator: g, Metric: metric, Mean: mean, SD: sd}
	}
	cells := []compare.Cell{
		cell("Wachter", "unfaithfulness", 0.100), cell("ECCCo", "unfaithfulness", 0.138), cell("REVISE", "unfaithfulness", 0.300),
		cell("Wachter", "implausibility", 0.500), cell("ECCCo", "implausibility", 0.400), cell("REVISE", "implausibility", 0.900),
	}
	pub := []compare.Published{
		pubOf("Wachter", "unfaithfulness", 0.10, 0.00), pubOf("ECCCo", "unfaithfulness", 0.04, 0.01), pubOf("REVISE", "unfaithfulness", 0.30, 0.02),
		pubOf("Wachter", "implausibility", 0.50, 0.01), pubOf("ECCCo", "implausibility", 0.40, 0.01), pubOf("REVISE", "implausibility", 0.90, 0.10),
	}
	cmp := compare.Compare(cells, pub)
	d := Disagreements(cmp)
	want := "circles MLP Ensemble: ECCCo is less faithful than Wachter here (+0.038) where the paper has −0.06."
	if len(d) != 1 || d[0] != want {
		t.Fatalf("disagreements = %q, want [%q]", d, want)
	}
	md := ComparisonMarkdown(cmp, "protocol 8, commit abc1234")
	for _, s := range []string{"Results from: protocol 8, commit abc1234", "5 of 6 cells (83 %) within the paper's mean ± max(3 sd, 3h) (rounding-aware, h half the last printed decimal), 0 of them only by the floor 3h; 5 of 6 (83 %) within mean ± 3 sd strictly",
		"sign of ECCCo − Wachter (unfaithfulness): 0 of 1 agree; of REVISE − Wachter (implausibility): 1 of 1 agree", "1 miss, significant (Welch's |z| > 3; the least |z| 20.9)",
		"max(3·sd, 3·h), h being half the last decimal", "| unfaithfulness | 1 | 0.50 |", "- " + want} {
		if !strings.Contains(md, s) {
			t.Errorf("the report lacks %q:\n%s", s, md)
		}
	}
	if !strings.HasPrefix(md, "# Ours against the published results\n\nResults from: protocol 8") {
		t.Errorf("the provenance should come first:\n%s", md[:200])
	}
}

func TestSpreadSection(t *testing.T) {
	cell := func(g, metric string, sd float64, runs int) compare.Cell {
		return compare.Cell{Dataset: "moons", Subset: "all", Model: "MLP", Generator: g, Metric: metric, Mean: 1, SD: sd, Runs: runs}
	}
	pub := func(g, metric string, sd float64) compare.Published {
		return compare.Published{Dataset: "moons", Subset: "all", Model: "MLP", Generator: g, Metric: metric, Mean: 1, SD: sd}
	}
	cells := []compare.Cell{
		cell("Wachter", "unfaithfulness", 0.30, 50), // 0.30 / 0.06 = 5
		cell("ECCCo", "unfaithfulness", 0.12, 50),   // 0.12 / 0.04 = 3
		cell("REVISE", "unfaithfulness", 0.02, 50),  // 0.02 / 0.04 = 0.5
		cell("Schut", "unfaithfulness", 0.50, 50),   // published 0.01 < SpreadFloor: left out
		cell("Wachter", "cost", 0.07, 50),           // 0.07 / 0.07 = 1
		cell("ECCCo", "cost", 0.40, 1),              // one run: no sd to compare
	}
	pubs := []compare.Published{pub("Wachter", "unfaithfulness", 0.06), pub("ECCCo", "unfaithfulness", 0.04),
		pub("REVISE", "unfaithfulness", 0.04), pub("Schut", "unfaithfulness", 0.01),
		pub("Wachter", "cost", 0.07), pub("ECCCo", "cost", 0.02)}
	md := ComparisonMarkdown(compare.Compare(cells, pubs), "")
	for _, s := range []string{"## Spread of the run means", "| unfaithfulness | 3 | 3.00 | 2 of 3 (67 %) |", "| all | 4 | 2.00 | 2 of 4 (50 %) |"} {
		if !strings.Contains(md, s) {
			t.Errorf("the report lacks %q", s)
		}
	}
}

func TestTimingsMarkdown(t *testing.T) {
	ts := []benchmark.Timings{{Dataset: "moons", Units: 4, Seconds: map[string]float64{"search": 120, "metrics": 60}},
		{Dataset: "circles", Units: 2, Seconds: map[string]float64{"models": 30}}}
	md := TimingsMarkdown(ts)
	for _, want := range []string{"| circles | 2 | 0.5 | 0.0 | 0.0 | 0.0 | 0.0 | 0.5 |", "| moons | 4 | 0.0 | 0.0 | 2.0 | 0.0 | 1.0 | 3.0 |", "| all | 6 | 0.5 | 0.0 | 2.0 | 0.0 | 1.0 | 3.5 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("timings table lacks %q:\n%s", want, md)
		}
	}
}

// A timings.md assembled from two runs gives two tables, each under the paragraph that says what it measured.
func TestTimingBlocks(t *testing.T) {
	md := "Run A, on pure Go:\n\n| data set | total (min) |\n|---|---|\n| moons | 3.0 |\n| all | 3.0 |\n\nRun B, a rerun\nof the images on XLA:\n\n| data set | total (min) |\n|---|---|\n| mnist | 60.0 |\n| all | 60.0 |\n"
	got := timingBlocks(md)
	if len(got) != 2 {
		t.Fatalf("%d blocks, want 2: %q", len(got), got)
	}
	if got[0].head != "Run A, on pure Go:" || got[1].head != "Run B, a rerun of the images on XLA:" {
		t.Errorf("heads %q and %q", got[0].head, got[1].head)
	}
	if !strings.Contains(got[1].table, "| mnist | 60.0 |") || strings.Contains(got[0].table, "mnist") {
		t.Errorf("tables split wrongly: %q", got)
	}
	if b := timingBlocks("| data set | total (min) |\n|---|---|\n| all | 1.0 |\n"); len(b) != 1 || b[0].head != "" {
		t.Errorf("a table alone: %q", b)
	}
}

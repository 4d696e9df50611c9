package compare

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The per-cell rounding by hand. A Table 2 cell printed 0.243 ± 0.000 (three decimals, h = 0.0005) has
// the tolerance max(3·0, 3·0.0005) = 0.0015: ours 0.2455 is |0.0025| away, outside; 0.2444 is 0.0014
// away, within (by the floor only); the same numbers against the appendix's 0.24 ± 0.00 (two decimals, h
// = 0.005, floor 0.015) are 0.0055 and 0.0044 away, both within. Two-decimal cells keep their rule:
// 0.20 ± 0.00 takes 0.185..0.215, with the decimals given as 2 or left 0.
func TestToleranceByPrintedDecimals(t *testing.T) {
	if h2, h3 := HalfDecimal(2), HalfDecimal(3); math.Abs(h2-0.005) > 1e-15 || math.Abs(h3-0.0005) > 1e-15 || HalfDecimal(0) != h2 {
		t.Fatalf("half decimals %v, %v, %v; want 0.005, 0.0005 and 0.005 for 0", h2, h3, HalfDecimal(0))
	}
	if f := RoundingFloor(3); math.Abs(f-0.0015) > 1e-15 {
		t.Errorf("floor at three decimals %v, want 0.0015", f)
	}
	if f := RoundingFloor(2); math.Abs(f-0.015) > 1e-15 {
		t.Errorf("floor at two decimals %v, want 0.015", f)
	}
	for _, c := range []struct {
		ours, paper, sd float64
		decimals        int
		within          bool
	}{
		{0.2455, 0.243, 0, 3, false}, // 0.0025 > 0.0015
		{0.2444, 0.243, 0, 3, true},  // 0.0014 ≤ 0.0015
		{0.2445, 0.243, 0, 3, true},  // on the floor's edge
		{0.2416, 0.243, 0, 3, true},  // −0.0014
		{0.2414, 0.243, 0, 3, false}, // −0.0016
		{0.2455, 0.24, 0, 2, true},   // 0.0055 ≤ 0.015
		{0.2444, 0.24, 0, 2, true},
		{0.36, 0.289, 0.024, 3, true},   // 0.071 ≤ 3·0.024 = 0.072: the sd decides, not the floor
		{0.362, 0.289, 0.024, 3, false}, // 0.073 > 0.072
		{0.215, 0.20, 0, 2, true},
		{0.216, 0.20, 0, 2, false},
		{0.215, 0.20, 0, 0, true}, // decimals not given: two
		{0.216, 0.20, 0, 0, false},
	} {
		if got := WithinRounding(c.ours, c.paper, c.sd, c.decimals); got != c.within {
			t.Errorf("WithinRounding(%v, %v ± %v at %d decimals) = %v, want %v", c.ours, c.paper, c.sd, c.decimals, got, c.within)
		}
		r := ComparedCell{Cell: Cell{Mean: c.ours}, Paper: c.paper, PaperSD: c.sd, PaperDecimals: c.decimals}
		if got := math.Abs(r.Deviation()) <= DeviationBand+1e-9; got != c.within {
			t.Errorf("%v vs %v ± %v at %d decimals: deviation %v, within %v", c.ours, c.paper, c.sd, c.decimals, r.Deviation(), c.within)
		}
	}
	// Deviation of 0.2455 against 0.243 ± 0.000: 0.0025 / 0.0005 = 5.
	if d := (ComparedCell{Cell: Cell{Mean: 0.2455}, Paper: 0.243, PaperDecimals: 3}).Deviation(); math.Abs(d-5) > 1e-9 {
		t.Errorf("deviation %v, want 5", d)
	}
	// Both rounded at three decimals: 3·max(0, 0.0005) + 0.0005 = 0.002.
	if !WithinBothRounded(0.2449, 0.243, 0, 3) || WithinBothRounded(0.2451, 0.243, 0, 3) {
		t.Errorf("both rounded at three decimals: 0.2449 should be within 0.002 of 0.243, 0.2451 not")
	}
	if !WithinBothRounded(0.22, 0.20, 0, 2) || WithinBothRounded(0.2201, 0.20, 0, 2) {
		t.Errorf("both rounded at two decimals: 0.22 should be within 0.02 of 0.20, 0.2201 not")
	}
	// Welch's z, MNIST (10 published runs), ours 0.245 ± 0.001 over 10 runs: against 0.243 ± 0.000 (sd
	// taken as 0.0005) 0.002 / √(0.000001/10 + 0.00000025/10) = 0.002 / 0.00035355 = 5.6569; against
	// 0.24 ± 0.00 (sd taken as 0.005) 0.005 / √(0.000001/10 + 0.000025/10) = 0.005 / 0.0016125 = 3.1009.
	if z := WelchZ(0.245, 0.001, 10, 0.243, 0, 3, 10); math.Abs(z-5.6569) > 5e-4 {
		t.Errorf("z at three decimals %.4f, want 5.6569", z)
	}
	if z := WelchZ(0.245, 0.001, 10, 0.24, 0, 2, 10); math.Abs(z-3.1009) > 5e-4 {
		t.Errorf("z at two decimals %.4f, want 3.1009", z)
	}
}

// Table 2's MLP unfaithfulness of valid counterfactuals (0.243, 0.246, 0.248, 0.247, 0.247) spreads
// 0.005, more than its tolerance 0.0015: the cells discriminate. The appendix's two decimals (0.24, 0.25,
// …) spread 0.01, less than 0.015: they did not. A miss of a three-decimal cell is FloorOnly-free, and
// counted by the tally at its own floor.
func TestThreeDecimalCellsDiscriminate(t *testing.T) {
	gens := []string{"ECCCo", "ECCCo+", "REVISE", "Schut", "Wachter"}
	t3 := []float64{0.243, 0.246, 0.248, 0.247, 0.247}
	t2 := []float64{0.24, 0.25, 0.25, 0.25, 0.25}
	for _, c := range []struct {
		means    []float64
		decimals int
		disc     bool
	}{{t3, 3, true}, {t2, 2, false}} {
		var pub []Published
		var cells []Cell
		for i, g := range gens {
			pub = append(pub, Published{Dataset: "mnist", Subset: "valid", Model: "MLP", Generator: g, Metric: "unfaithfulness", Mean: c.means[i], Decimals: c.decimals})
			cells = append(cells, Cell{Dataset: "mnist", Subset: "valid", Model: "MLP", Generator: g, Metric: "unfaithfulness", Mean: c.means[i] + 0.001, SD: 0.0002, Runs: 10})
		}
		cmp := Compare(cells, pub)
		for _, r := range cmp.Rows {
			if r.Discriminating != c.disc {
				t.Errorf("%d decimals, %s: discriminating %v, want %v (spread %v, tolerance %v)", c.decimals, r.Generator, r.Discriminating, c.disc, r.Spread, r.Tolerance())
			}
			if !r.Within || !FloorOnly(r) || r.PaperDecimals != c.decimals {
				t.Errorf("%d decimals, %s: 0.001 away should be within only by the floor (%+v)", c.decimals, r.Generator, r)
			}
		}
	}
}

// Rounded as published rounds each of ours to the decimals the paper printed that cell with, and the
// published source floors each sd at half its own last decimal: a three-decimal pair ECCCo 0.2434,
// Wachter 0.2466 (published at three decimals) rounds to 0.243 and 0.247, −0.004, se √(2·0.0005²/50).
func TestLikeForLikeThreeDecimals(t *testing.T) {
	cell := func(gen string, mean float64) Cell {
		return Cell{Dataset: "moons", Subset: "all", Model: "MLP", Generator: gen, Metric: "unfaithfulness", Mean: mean, SD: 0.0001, Runs: 50}
	}
	pub := []Published{
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "unfaithfulness", Mean: 0.243, Decimals: 3},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "unfaithfulness", Mean: 0.247, Decimals: 3},
	}
	f := TestClaim(PaperClaims[0], LikeForLike(ClaimSource{Name: "ours", Cells: []Cell{cell("ECCCo", 0.2434), cell("Wachter", 0.2466)}}, pub))
	e := f.Units[0].Estimates[0].Estimate
	if math.Abs(e.Value+0.004) > 1e-9 || math.Abs(e.SE-math.Sqrt(2*0.0005*0.0005/50)) > 1e-9 {
		t.Errorf("rounded estimate %+v, want −0.004 with se %v", e, math.Sqrt(2*0.0005*0.0005/50))
	}
	p := TestClaim(PaperClaims[0], PublishedSource(pub)).Units[0].Estimates[0].Estimate
	if math.Abs(p.Value+0.004) > 1e-9 || math.Abs(p.SE-math.Sqrt(2*0.0005*0.0005/50)) > 1e-9 {
		t.Errorf("published estimate %+v, want −0.004 with the sd floored at 0.0005", p)
	}
}

// table2 is the paper's Table 2 (tab:results-vision) as printed in partials/body.tex, transcribed by
// hand: its line, the model and generator, then unfaithfulness and implausibility as printed (** and *
// the stars, b the bold), and beside each the appendix's cell of valid counterfactuals (its two decimals)
// and, for the two Schut implausibilities, the appendix's cell of all counterfactuals.
var table2 = []struct {
	line                int
	model, generator    string
	unfaith, impl       string
	appUnfaith, appImpl [2]float64 // appendix valid cells: mean, sd
	appImplAll          float64    // appendix all-counterfactuals implausibility (0: not needed)
}{
	{267, "MLP", "ECCCo", "b0.243 ± 0.000**", "0.420 ± 0.001", [2]float64{0.24, 0}, [2]float64{0.42, 0}, 0},
	{269, "MLP", "ECCCo+", "0.246 ± 0.000*", "0.306 ± 0.001**", [2]float64{0.25, 0}, [2]float64{0.31, 0}, 0},
	{271, "MLP", "REVISE", "0.248 ± 0.000", "b0.301 ± 0.004**", [2]float64{0.25, 0}, [2]float64{0.30, 0}, 0},
	{273, "MLP", "Schut", "0.247 ± 0.001", "0.303 ± 0.008**", [2]float64{0.25, 0}, [2]float64{0.30, 0.01}, 0.34},
	{275, "MLP", "Wachter", "0.247 ± 0.000", "0.344 ± 0.002", [2]float64{0.25, 0}, [2]float64{0.34, 0}, 0},
	{277, "LeNet-5", "ECCCo", "0.248 ± 0.000**", "0.387 ± 0.002", [2]float64{0.25, 0}, [2]float64{0.39, 0}, 0},
	{279, "LeNet-5", "ECCCo+", "b0.248 ± 0.000**", "0.310 ± 0.002**", [2]float64{0.25, 0}, [2]float64{0.31, 0}, 0},
	{281, "LeNet-5", "REVISE", "0.248 ± 0.000**", "0.301 ± 0.002**", [2]float64{0.25, 0}, [2]float64{0.30, 0}, 0},
	{283, "LeNet-5", "Schut", "0.250 ± 0.002", "b0.289 ± 0.024*", [2]float64{0.25, 0}, [2]float64{0.29, 0.02}, 0.34},
	{285, "LeNet-5", "Wachter", "0.249 ± 0.000", "0.335 ± 0.002", [2]float64{0.25, 0}, [2]float64{0.33, 0}, 0},
}

// printedCell parses "b0.243 ± 0.000**" into mean, sd, stars and bold.
func printedCell(t *testing.T, s string) (mean, sd float64, stars int, bold bool) {
	t.Helper()
	bold = strings.HasPrefix(s, "b")
	s = strings.TrimPrefix(s, "b")
	stars = len(s) - len(strings.TrimRight(s, "*"))
	s = strings.TrimRight(s, "*")
	var err1, err2 error
	f := strings.Split(s, " ± ")
	mean, err1 = strconv.ParseFloat(f[0], 64)
	sd, err2 = strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("bad cell %q", s)
	}
	return mean, sd, stars, bold
}

// publishedRows reads paper/published-results.csv as text, keyed by data set, subset, model, generator
// and metric: its columns by name.
func publishedRows(t *testing.T) (map[[5]string]map[string]string, []map[string]string) {
	t.Helper()
	f, err := os.Open(DefaultPublished())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[[5]string]map[string]string{}
	var rows []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out[[5]string{r[0], r[1], r[2], r[3], r[4]}] = m
		rows = append(rows, m)
	}
	return out, rows
}

// Every one of Table 2's 20 cells is in paper/published-results.csv as the paper prints it (mean, sd,
// stars, bold, three decimals, its line of body.tex), and is the appendix's valid cell at more decimals:
// each printed number's interval of rounding (± 0.0005) meets the appendix's (± 0.005). The two Schut
// implausibilities cannot be the all-counterfactuals cells (0.34): Table 2 is the valid subset.
func TestTable2CellsArePublished(t *testing.T) {
	rows, all := publishedRows(t)
	n3 := 0
	for _, r := range all {
		if r["decimals"] == "3" {
			n3++
		}
	}
	if n3 != 20 {
		t.Errorf("%d cells at three decimals, want Table 2's 20", n3)
	}
	for _, c := range table2 {
		for i, metric := range []string{"unfaithfulness", "implausibility"} {
			text, app := c.unfaith, c.appUnfaith
			if i == 1 {
				text, app = c.impl, c.appImpl
			}
			mean, sd, stars, bold := printedCell(t, text)
			r := rows[[5]string{"mnist", "valid", c.model, c.generator, metric}]
			want := map[string]string{"mean": fmt.Sprintf("%.3f", mean), "std": fmt.Sprintf("%.3f", sd), "stars": strconv.Itoa(stars),
				"bold": map[bool]string{true: "1", false: "0"}[bold], "decimals": "3", "source": fmt.Sprintf("body.tex:%d", c.line)}
			for k, v := range want {
				if r[k] != v {
					t.Errorf("%s %s %s: %s is %q, Table 2 (body.tex:%d) prints %q", c.model, c.generator, metric, k, r[k], c.line, v)
				}
			}
			const both = 0.0005 + 0.005 + 1e-9
			if math.Abs(mean-app[0]) > both || math.Abs(sd-app[1]) > both {
				t.Errorf("%s %s %s: %v ± %v cannot round to the appendix's valid cell %v ± %v", c.model, c.generator, metric, mean, sd, app[0], app[1])
			}
			if i == 1 && c.appImplAll != 0 && math.Abs(mean-c.appImplAll) <= both {
				t.Errorf("%s %s: %v could be the all-counterfactuals cell %v", c.model, c.generator, mean, c.appImplAll)
			}
		}
	}
}

// sharedPaper is the paper's LaTeX source beside the checkout: $ECCCO_TEST_SHARED_PAPER, else
// ../../../shared/paper relative to this package.
func sharedPaper() string {
	if dir := os.Getenv("ECCCO_TEST_SHARED_PAPER"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "..", "shared", "paper")
}

var texCell = regexp.MustCompile(`^(\\textbf\{)?(\d+\.\d+) ± (\d+\.\d+)\}?((?:\*|\\hphantom\{\*\})*)$`)

// Where the paper's LaTeX source is at hand, every cell of published-results.csv whose source is a line
// of body.tex equals that line's text (mean, sd, stars, bold), and every other one is the appendix's as
// copied (published/results.csv: the same first nine columns).
func TestPublishedAgainstPaperSource(t *testing.T) {
	dir := sharedPaper()
	body, err := os.ReadFile(filepath.Join(dir, "partials", "body.tex"))
	if err != nil {
		t.Skipf("the paper's source not found in %s (set ECCCO_TEST_SHARED_PAPER to the directory holding partials/body.tex)", dir)
	}
	lines := strings.Split(string(body), "\n")
	rows, all := publishedRows(t)
	checked := 0
	for k, r := range rows {
		ln, ok := strings.CutPrefix(r["source"], "body.tex:")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(ln)
		if err != nil || i < 1 || i > len(lines) {
			t.Errorf("%v: bad source %q", k, r["source"])
			continue
		}
		parts := regexp.MustCompile(`\s*&\s*`).Split(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lines[i-1]), `\\`)), -1)
		if len(parts) != 4 || parts[1] != k[3] || !strings.HasSuffix(parts[0], k[2]+"}") && parts[0] != "" {
			t.Errorf("%v: body.tex:%d is not its row: %q", k, i, lines[i-1])
			continue
		}
		col := map[string]int{"unfaithfulness": 2, "implausibility": 3}[k[4]]
		m := texCell.FindStringSubmatch(parts[col])
		if m == nil {
			t.Errorf("%v: body.tex:%d cell %q not read", k, i, parts[col])
			continue
		}
		stars := strings.Count(m[4], "*") - strings.Count(m[4], "hphantom")
		bold := map[bool]string{true: "1", false: "0"}[m[1] != ""]
		if r["mean"] != m[2] || r["std"] != m[3] || r["stars"] != strconv.Itoa(stars) || r["bold"] != bold || r["decimals"] != strconv.Itoa(len(strings.Split(m[2], ".")[1])) {
			t.Errorf("%v: %v, body.tex:%d prints %q", k, r, i, parts[col])
		}
		checked++
	}
	if checked != 20 {
		t.Errorf("%d cells checked against body.tex, want 20", checked)
	}
	f, err := os.Open(filepath.Join(dir, "published", "results.csv"))
	if err != nil {
		t.Logf("the appendix's copy not found: %v", err)
		return
	}
	defer f.Close()
	recs, err := csv.NewReader(bufio.NewReader(f)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs)-1 != len(all) {
		t.Errorf("%d published cells, the appendix has %d", len(all), len(recs)-1)
	}
	for _, a := range recs[1:] {
		r, ok := rows[[5]string{a[0], a[1], a[2], a[3], a[4]}]
		switch {
		case !ok:
			t.Errorf("%v missing", a[:5])
		case r["source"] == "appendix" && (r["mean"] != a[5] || r["std"] != a[6] || r["stars"] != a[7] || r["bold"] != a[8] || r["decimals"] != "2"):
			t.Errorf("%v: %v, the appendix has %v", a[:5], r, a)
		case r["source"] != "appendix" && !strings.HasPrefix(r["source"], "body.tex:"):
			t.Errorf("%v: source %q", a[:5], r["source"])
		}
	}
}

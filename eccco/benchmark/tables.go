package benchmark

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Metric names in the order of the paper's tables, and whether higher is better.
var Metrics = []struct {
	Name     string
	Title    string
	Higher   bool
	Of       func(r Row) float64
	ValidTab bool // shown in the valid-only tables
}{
	{"unfaithfulness", "Unfaithfulness ↓", false, func(r Row) float64 { return r.Unfaithfulness }, true},
	{"implausibility", "Implausibility ↓", false, func(r Row) float64 { return r.Implausibility }, true},
	{"uncertainty", "Uncertainty ↓", false, func(r Row) float64 { return r.Uncertainty }, true},
	{"cost", "Cost ↓", false, func(r Row) float64 { return r.Cost }, true},
	{"redundancy", "Redundancy ↑", true, func(r Row) float64 { return r.Redundancy }, true},
	{"validity", "Validity ↑", true, func(r Row) float64 {
		if r.Valid {
			return 1
		}
		return 0
	}, true},
}

// Cell is one aggregated number: the mean over runs of the per-run means, and the sample sd of the run
// means, as the paper aggregates. Stars is 1 or 2 when the generator beats Wachter by more than 1 or 2
// pooled sd; Bold marks the best generator of its model for the metric.
type Cell struct {
	Dataset, Subset, Model, Generator, Metric string
	Mean, SD                                  float64
	Runs                                      int
	Stars                                     int
	Bold                                      bool
}

// Aggregate turns rows into cells for the subsets "all" and "valid" (only valid counterfactuals; runs
// without any are left out).
func Aggregate(rows []Row) []Cell {
	type key struct{ d, s, m, g, metric string }
	runMeans := map[key]map[int][2]float64{} // run → (sum, count)
	var order []key
	for _, r := range rows {
		model := modelTitle(r.Model)
		for _, subset := range []string{"all", "valid"} {
			if subset == "valid" && !r.Valid {
				continue
			}
			for _, m := range Metrics {
				k := key{r.Dataset, subset, model, r.Generator, m.Name}
				if runMeans[k] == nil {
					runMeans[k] = map[int][2]float64{}
					order = append(order, k)
				}
				v := m.Of(r)
				if math.IsNaN(v) {
					continue
				}
				acc := runMeans[k][r.Run]
				runMeans[k][r.Run] = [2]float64{acc[0] + v, acc[1] + 1}
			}
		}
	}
	cells := make([]Cell, 0, len(order))
	index := map[key]int{}
	for _, k := range order {
		var means []float64
		runs := make([]int, 0, len(runMeans[k]))
		for run := range runMeans[k] {
			runs = append(runs, run)
		}
		sort.Ints(runs)
		for _, run := range runs {
			acc := runMeans[k][run]
			if acc[1] > 0 {
				means = append(means, acc[0]/acc[1])
			}
		}
		mean, sd := meanSD(means)
		index[k] = len(cells)
		cells = append(cells, Cell{Dataset: k.d, Subset: k.s, Model: k.m, Generator: k.g, Metric: k.metric, Mean: mean, SD: sd, Runs: len(means)})
	}
	// Stars against Wachter and bold for the best per (dataset, subset, model, metric).
	best := map[key]int{}
	for i, c := range cells {
		higher := metricHigher(c.Metric)
		if w, ok := index[key{c.Dataset, c.Subset, c.Model, "Wachter", c.Metric}]; ok && c.Generator != "Wachter" {
			wc := cells[w]
			pooled := math.Sqrt((c.SD*c.SD + wc.SD*wc.SD) / 2)
			gain := wc.Mean - c.Mean
			if higher {
				gain = -gain
			}
			switch {
			case gain > 2*pooled && gain > 0:
				cells[i].Stars = 2
			case gain > pooled && gain > 0:
				cells[i].Stars = 1
			}
		}
		bk := key{c.Dataset, c.Subset, c.Model, "", c.Metric}
		j, ok := best[bk]
		if math.IsNaN(c.Mean) {
			continue
		}
		if !ok || (higher && c.Mean > cells[j].Mean) || (!higher && c.Mean < cells[j].Mean) {
			best[bk] = i
		}
	}
	for _, i := range best {
		cells[i].Bold = true
	}
	return cells
}

func metricHigher(name string) bool {
	for _, m := range Metrics {
		if m.Name == name {
			return m.Higher
		}
	}
	return false
}

func modelTitle(kind string) string {
	if k, err := models.ParseKind(kind); err == nil {
		return k.Title()
	}
	return kind
}

func meanSD(v []float64) (float64, float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	mean := s / float64(len(v))
	if len(v) == 1 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// generatorOrder sorts generators as the paper's tables do.
func generatorOrder(name string) int {
	for i, g := range counterfactual.GeneratorNames() {
		if g == name {
			return i
		}
	}
	return 1000
}

func modelOrder(title string) int {
	for i, k := range []models.Kind{models.KindJEM, models.KindJEMEnsemble, models.KindLeNet, models.KindMLP, models.KindMLPEnsemble} {
		if k.Title() == title {
			return i
		}
	}
	return 1000
}

// WriteTables writes, per data set and subset, the paper's result table as LaTeX (booktabs), Markdown and
// CSV into dir: table-DATASET.{tex,md} (all counterfactuals) and table-DATASET-valid.{tex,md}, plus
// cells.csv with every cell.
func WriteTables(dir string, cells []Cell) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing tables: %w", err)
	}
	groups := map[[2]string][]Cell{}
	for _, c := range cells {
		k := [2]string{c.Dataset, c.Subset}
		groups[k] = append(groups[k], c)
	}
	keys := make([][2]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		name := "table-" + k[0]
		if k[1] == "valid" {
			name += "-valid"
		}
		md, tex := renderTable(k[0], k[1], groups[k])
		if err := atomicfile.WriteFile(filepath.Join(dir, name+".md"), []byte(md), 0o644); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, name+".tex"), []byte(tex), 0o644); err != nil {
			return err
		}
	}
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	_ = w.Write([]string{"dataset", "subset", "model", "generator", "metric", "mean", "std", "runs", "stars", "bold"})
	for _, c := range cells {
		_ = w.Write([]string{c.Dataset, c.Subset, c.Model, c.Generator, c.Metric, ff(c.Mean), ff(c.SD), strconv.Itoa(c.Runs), strconv.Itoa(c.Stars), b01(c.Bold)})
	}
	w.Flush()
	return atomicfile.WriteFile(filepath.Join(dir, "cells.csv"), []byte(sb.String()), 0o644)
}

// ReadCells reads a cells.csv written by WriteTables.
func ReadCells(path string) ([]Cell, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading cells: %w", err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	want := []string{"dataset", "subset", "model", "generator", "metric", "mean", "std", "runs", "stars", "bold"}
	if len(recs) == 0 || !slices.Equal(recs[0], want) {
		return nil, fmt.Errorf("reading %s: not a cells file (want the header %v)", path, want)
	}
	cells := make([]Cell, 0, len(recs)-1)
	for i, r := range recs[1:] {
		c := Cell{Dataset: r[0], Subset: r[1], Model: r[2], Generator: r[3], Metric: r[4], Bold: r[9] == "1"}
		var errs [4]error
		c.Mean, errs[0] = strconv.ParseFloat(r[5], 64)
		c.SD, errs[1] = strconv.ParseFloat(r[6], 64)
		c.Runs, errs[2] = strconv.Atoi(r[7])
		c.Stars, errs[3] = strconv.Atoi(r[8])
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("reading %s, line %d: %w", path, i+2, err)
		}
		cells = append(cells, c)
	}
	return cells, nil
}

func renderTable(dataset, subset string, cells []Cell) (md, tex string) {
	type rk struct{ model, gen string }
	byRow := map[rk]map[string]Cell{}
	var rows []rk
	for _, c := range cells {
		k := rk{c.Model, c.Generator}
		if byRow[k] == nil {
			byRow[k] = map[string]Cell{}
			rows = append(rows, k)
		}
		byRow[k][c.Metric] = c
	}
	sort.Slice(rows, func(i, j int) bool {
		if a, b := modelOrder(rows[i].model), modelOrder(rows[j].model); a != b {
			return a < b
		}
		return generatorOrder(rows[i].gen) < generatorOrder(rows[j].gen)
	})
	var m, t strings.Builder
	title := fmt.Sprintf("Results for %s (%s counterfactuals): mean ± sd across runs of the per-run means; bold: best per model; * / **: more than 1 / 2 pooled sd better than Wachter.", dataset, subset)
	m.WriteString(title + "\n\n| Model | Generator |")
	t.WriteString("\\begin{table}\n\\caption{" + strings.ReplaceAll(title, "±", "$\\pm$") + "}\n\\centering\n\\begin{tabular}{ll" + strings.Repeat("r", len(Metrics)) + "}\n\\toprule\nModel & Generator")
	for _, me := range Metrics {
		m.WriteString(" " + me.Title + " |")
		t.WriteString(" & " + strings.NewReplacer("↓", "$\\downarrow$", "↑", "$\\uparrow$").Replace(me.Title))
	}
	m.WriteString("\n|---|---|" + strings.Repeat("---|", len(Metrics)) + "\n")
	t.WriteString("\\\\\n\\midrule\n")
	last := ""
	for _, k := range rows {
		if last != "" && k.model != last {
			t.WriteString("\\midrule\n")
		}
		last = k.model
		m.WriteString("| " + k.model + " | " + k.gen + " |")
		t.WriteString(k.model + " & " + k.gen)
		for _, me := range Metrics {
			c, ok := byRow[k][me.Name]
			if !ok || math.IsNaN(c.Mean) {
				m.WriteString(" – |")
				t.WriteString(" & –")
				continue
			}
			stars := strings.Repeat("*", c.Stars)
			v := fmt.Sprintf("%.2f ± %.2f", c.Mean, c.SD)
			lv := fmt.Sprintf("%.2f $\\pm$ %.2f", c.Mean, c.SD)
			if c.Bold {
				v, lv = "**"+v+"**", "\\textbf{"+lv+"}"
			}
			m.WriteString(" " + v + stars + " |")
			t.WriteString(" & " + lv + stars)
		}
		m.WriteString("\n")
		t.WriteString("\\\\\n")
	}
	t.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	return m.String(), t.String()
}

// TableMarkdown renders one of the paper's result tables (a data set's cells of one subset: "all" or
// "valid") as Markdown, as WriteTables writes it.
func TableMarkdown(cells []Cell, dataset, subset string) string {
	var sel []Cell
	for _, c := range cells {
		if c.Dataset == dataset && c.Subset == subset {
			sel = append(sel, c)
		}
	}
	md, _ := renderTable(dataset, subset, sel)
	return md
}

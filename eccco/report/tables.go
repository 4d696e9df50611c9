package report

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// WriteTables writes, per data set and subset, the paper's result table as LaTeX (booktabs), Markdown and
// CSV into dir: table-DATASET.{tex,md} (all counterfactuals) and table-DATASET-valid.{tex,md}, plus
// cells.csv with every cell.
func WriteTables(dir string, cells []compare.Cell) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing tables: %w", err)
	}
	groups := map[[2]string][]compare.Cell{}
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
		_ = w.Write([]string{c.Dataset, c.Subset, c.Model, c.Generator, c.Metric, benchmark.FormatFloat(c.Mean), benchmark.FormatFloat(c.SD), strconv.Itoa(c.Runs), strconv.Itoa(c.Stars), b01(c.Bold)})
	}
	w.Flush()
	return atomicfile.WriteFile(filepath.Join(dir, "cells.csv"), []byte(sb.String()), 0o644)
}

func renderTable(dataset, subset string, cells []compare.Cell) (md, tex string) {
	type rk struct{ model, gen string }
	byRow := map[rk]map[string]compare.Cell{}
	var rows []rk
	for _, c := range cells {
		k := rk{c.Model, c.Generator}
		if byRow[k] == nil {
			byRow[k] = map[string]compare.Cell{}
			rows = append(rows, k)
		}
		byRow[k][c.Metric] = c
	}
	sort.Slice(rows, func(i, j int) bool {
		if a, b := compare.ModelOrder(rows[i].model), compare.ModelOrder(rows[j].model); a != b {
			return a < b
		}
		return compare.GeneratorIndex(rows[i].gen) < compare.GeneratorIndex(rows[j].gen)
	})
	var m, t strings.Builder
	title := fmt.Sprintf("Results for %s (%s counterfactuals): mean ± sd across runs of the per-run means; bold: best per model; * / **: more than 1 / 2 pooled sd better than Wachter.", dataset, subset)
	m.WriteString(title + "\n\n| Model | Generator |")
	t.WriteString("\\begin{table}\n\\caption{" + strings.ReplaceAll(title, "±", "$\\pm$") + "}\n\\centering\n\\begin{tabular}{ll" + strings.Repeat("r", len(compare.Metrics)) + "}\n\\toprule\nModel & Generator")
	for _, me := range compare.Metrics {
		m.WriteString(" " + me.Title + " |")
		t.WriteString(" & " + strings.NewReplacer("↓", "$\\downarrow$", "↑", "$\\uparrow$").Replace(me.Title))
	}
	m.WriteString("\n|---|---|" + strings.Repeat("---|", len(compare.Metrics)) + "\n")
	t.WriteString("\\\\\n\\midrule\n")
	last := ""
	for _, k := range rows {
		if last != "" && k.model != last {
			t.WriteString("\\midrule\n")
		}
		last = k.model
		m.WriteString("| " + k.model + " | " + k.gen + " |")
		t.WriteString(k.model + " & " + k.gen)
		for _, me := range compare.Metrics {
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
func TableMarkdown(cells []compare.Cell, dataset, subset string) string {
	var sel []compare.Cell
	for _, c := range cells {
		if c.Dataset == dataset && c.Subset == subset {
			sel = append(sel, c)
		}
	}
	md, _ := renderTable(dataset, subset, sel)
	return md
}

func b01(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

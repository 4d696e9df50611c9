package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
)

// PerformanceMarkdown renders our Table 5 (test accuracy, macro precision, macro F1 per data set and
// model) beside the paper's accuracy; ✗ marks a model more than compare.PerformanceTolerance below it.
func PerformanceMarkdown(rows []*experiment.Performance) string {
	var sb strings.Builder
	sb.WriteString("| Dataset | Model | Accuracy | Precision | F1 | Paper accuracy | Δ accuracy | Train rows | Epochs | Train time (s) |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		paper, delta := "–", "–"
		if r.HasPublished {
			paper = fmt.Sprintf("%.2f", r.Published.Accuracy)
			d := r.Accuracy - r.Published.Accuracy
			delta = fmt.Sprintf("%+.3f", d)
			if d < -compare.PerformanceTolerance {
				delta += " ✗"
			}
		}
		rowsCol, epochs, secs := fmt.Sprint(r.TrainRows), fmt.Sprint(r.Epochs), fmt.Sprintf("%.1f", r.TrainSeconds)
		if r.Authors {
			rowsCol, epochs, secs = "the authors'", "–", "–"
		}
		fmt.Fprintf(&sb, "| %s | %s | %.3f | %.3f | %.3f | %s | %s | %s | %s | %s |\n",
			r.Dataset, r.Kind.Title(), r.Accuracy, r.Precision, r.F1, paper, delta, rowsCol, epochs, secs)
	}
	return sb.String()
}

// WritePerformance writes our Table 5 as DIR/perf.csv, perf.md and perf.tex (each atomically).
func WritePerformance(dir string, rows []*experiment.Performance) error {
	table := PerformanceMarkdown(rows)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"dataset", "model", "accuracy", "precision", "f1", "paper_accuracy", "paper_precision", "paper_f1", "train_rows", "test_rows", "epochs", "train_seconds"})
	for _, r := range rows {
		pa, pp, pf := math.NaN(), math.NaN(), math.NaN()
		if r.HasPublished {
			pa, pp, pf = r.Published.Accuracy, r.Published.Precision, r.Published.F1
		}
		ff := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
		_ = w.Write([]string{r.Dataset, string(r.Kind), ff(r.Accuracy), ff(r.Precision), ff(r.F1),
			ff(pa), ff(pp), ff(pf), strconv.Itoa(r.TrainRows), strconv.Itoa(r.TestRows), strconv.Itoa(r.Epochs), strconv.FormatFloat(r.TrainSeconds, 'f', 2, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("writing perf results: %w", err)
	}
	for name, content := range map[string][]byte{"perf.csv": buf.Bytes(), "perf.md": []byte(table), "perf.tex": []byte(PerformanceLaTeX(rows))} {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// PerformanceLaTeX renders our Table 5 in the layout of the paper's table_perf.tex (booktabs).
func PerformanceLaTeX(rows []*experiment.Performance) string {
	var sb strings.Builder
	sb.WriteString("\\begin{table}\n\\caption{Test performance of the models (ours; the paper's accuracy in brackets).}\n\\centering\n")
	sb.WriteString("\\begin{tabular}{llrrr}\n\\toprule\nDataset & Model & Accuracy & Precision & F1\\\\\n\\midrule\n")
	for _, r := range rows {
		paper := ""
		if r.HasPublished {
			paper = fmt.Sprintf(" (%.2f)", r.Published.Accuracy)
		}
		fmt.Fprintf(&sb, "%s & %s & %.2f%s & %.2f & %.2f\\\\\n", r.Dataset, r.Kind.Title(), r.Accuracy, paper, r.Precision, r.F1)
	}
	sb.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	return sb.String()
}

package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// perfTolerance is how far below the paper's accuracy a model may land and still count as reproduced.
const perfTolerance = 0.03

func runPerf(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("perf", "perf [--data all|NAME,...] [--models mlp,mlp-ensemble,jem,jem-ensemble,lenet] [--mode paper|authors-code] [flags]", stderr)
	datasets := fs.String("data", "all", "data sets: 'all' (every available one) or a comma-separated list")
	kinds := fs.String("models", "mlp,mlp-ensemble", "comma-separated models to score (mlp, mlp-ensemble, jem, jem-ensemble, lenet; lenet only on image sets); saved ones are reused, missing ones trained and saved")
	out := fs.String("out", filepath.Join("runs", "perf"), "directory for perf.csv, perf.md and perf.tex ('none' to skip)")
	strict := fs.Bool("strict", false, "exit with an error if a model is more than 0.03 below the paper's accuracy")
	saveModels := fs.String("save-models", "", "alias of --models-dir (kept for older scripts)")
	skipMissing := fs.Bool("skip-missing", false, "skip listed data sets that are not available here instead of failing ('all' always skips them)")
	var ef expFlags
	ef.register(fs, "jem-paper-code")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("perf: unexpected arguments %v", fs.Args())
	}
	if *saveModels != "" {
		if ef.modelsDir != "" && ef.modelsDir != *saveModels {
			return fmt.Errorf("perf: --save-models %s and --models-dir %s disagree", *saveModels, ef.modelsDir)
		}
		ef.modelsDir = *saveModels
	}
	names, explicit, err := dataList(*datasets)
	if err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	kindList, err := kindList(*kinds)
	if err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	opts, err := ef.options(stderr)
	if err != nil {
		return fmt.Errorf("perf: %w", err)
	}
	fmt.Fprintf(stderr, "backend: %s\n", opts.Backend.Description())

	var rows []*experiment.Performance
	var skipped []string
	for _, name := range names {
		e, err := experiment.Open(name, opts)
		if err != nil {
			if (explicit && !*skipMissing) || !errors.Is(err, data.ErrNotAvailable) {
				return fmt.Errorf("perf: %w", err)
			}
			fmt.Fprintf(stderr, "skipping %s: %v\n", name, err)
			skipped = append(skipped, name)
			continue
		}
		for _, kind := range kindList {
			if kind == models.KindLeNet && e.Split().Train.Image == nil {
				continue
			}
			p, err := e.Performance(ctx, kind)
			if err != nil {
				return fmt.Errorf("perf: %w", err)
			}
			rows = append(rows, p)
		}
	}
	table := perfMarkdown(rows)
	fmt.Fprintln(stdout, table)
	if len(skipped) > 0 {
		fmt.Fprintf(stdout, "Not available here (run 'eccco data fetch NAME'): %s\n", strings.Join(skipped, ", "))
	}
	if *out != "none" {
		if err := writePerf(*out, rows, table); err != nil {
			return fmt.Errorf("perf: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s, %s and %s\n", filepath.Join(*out, "perf.csv"), filepath.Join(*out, "perf.md"), filepath.Join(*out, "perf.tex"))
	}
	if *strict {
		var below []string
		for _, r := range rows {
			if r.HasPublished && r.Accuracy < r.Published.Accuracy-perfTolerance {
				below = append(below, fmt.Sprintf("%s/%s %.3f < %.2f−%.2f", r.Dataset, r.Kind, r.Accuracy, r.Published.Accuracy, perfTolerance))
			}
		}
		if len(below) > 0 {
			return fmt.Errorf("perf: accuracy below the paper's by more than %.2f: %s", perfTolerance, strings.Join(below, "; "))
		}
	}
	return nil
}

// dataList parses a --data value: 'all' (every data set; explicit false) or a list of known, distinct
// names.
func dataList(s string) (names []string, explicit bool, err error) {
	if strings.TrimSpace(s) == "all" {
		return data.Names(), false, nil
	}
	seen := map[string]bool{}
	for _, n := range splitList(s) {
		if _, err := data.Lookup(n); err != nil {
			return nil, true, err
		}
		if seen[n] {
			return nil, true, fmt.Errorf("%w: data set %s is listed twice", experiment.ErrInvalid, n)
		}
		seen[n] = true
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, true, fmt.Errorf("%w: no data set given", experiment.ErrInvalid)
	}
	return names, true, nil
}

// kindList parses a comma-separated list of distinct model kinds.
func kindList(s string) ([]models.Kind, error) {
	var out []models.Kind
	seen := map[models.Kind]bool{}
	for _, k := range splitList(s) {
		kind, err := models.ParseKind(k)
		if err != nil {
			return nil, err
		}
		if seen[kind] {
			return nil, fmt.Errorf("%w: model %s is listed twice", experiment.ErrInvalid, kind)
		}
		seen[kind] = true
		out = append(out, kind)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no model given", experiment.ErrInvalid)
	}
	return out, nil
}

func perfMarkdown(rows []*experiment.Performance) string {
	var sb strings.Builder
	sb.WriteString("| Dataset | Model | Accuracy | Precision | F1 | Paper accuracy | Δ accuracy | Train rows | Epochs | Train time (s) |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		paper, delta := "–", "–"
		if r.HasPublished {
			paper = fmt.Sprintf("%.2f", r.Published.Accuracy)
			d := r.Accuracy - r.Published.Accuracy
			delta = fmt.Sprintf("%+.3f", d)
			if d < -perfTolerance {
				delta += " ✗"
			}
		}
		fmt.Fprintf(&sb, "| %s | %s | %.3f | %.3f | %.3f | %s | %s | %d | %d | %.1f |\n",
			r.Dataset, r.Kind.Title(), r.Accuracy, r.Precision, r.F1, paper, delta, r.TrainRows, r.Epochs, r.TrainSeconds)
	}
	return sb.String()
}

func writePerf(dir string, rows []*experiment.Performance, table string) error {
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
	for name, content := range map[string][]byte{"perf.csv": buf.Bytes(), "perf.md": []byte(table), "perf.tex": []byte(perfLaTeX(rows))} {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// perfLaTeX renders the model-performance table in the layout of the paper's table_perf.tex (booktabs).
func perfLaTeX(rows []*experiment.Performance) string {
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

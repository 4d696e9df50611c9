package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// perfTolerance is how far below the paper's accuracy a model may land and still count as reproduced.
const perfTolerance = 0.03

func runPerf(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("perf", "perf [--data all|NAME,...] [--models mlp,mlp-ensemble,jem,jem-ensemble,lenet] [flags]", stderr)
	datasets := fs.String("data", "all", "data sets: 'all' (every available one) or a comma-separated list")
	kinds := fs.String("models", "mlp,mlp-ensemble", "comma-separated models to train (mlp, mlp-ensemble, jem, jem-ensemble, lenet; lenet only on image sets)")
	out := fs.String("out", filepath.Join("runs", "perf"), "directory for perf.csv and perf.md ('none' to skip)")
	strict := fs.Bool("strict", false, "exit with an error if a model is more than 0.03 below the paper's accuracy")
	modelsOut := fs.String("save-models", "", "also save every trained model under DIR/DATA/MODEL (e.g. runs/models, where 'eccco sample' looks)")
	lenetEpochs := fs.Int("lenet-epochs", 0, "epochs for LeNet-5 (0: as --epochs; the paper's 100 take about 25 min per data set here)")
	var cfg trainConfig
	cfg.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	names := data.Names()
	explicit := *datasets != "all"
	if explicit {
		names = splitList(*datasets)
	}
	var kindList []models.Kind
	for _, k := range splitList(*kinds) {
		kind, err := models.ParseKind(k)
		if err != nil {
			return err
		}
		kindList = append(kindList, kind)
	}
	b, err := backend.New()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "backend: %s\n", b.Description())

	var rows []*trained
	var skipped []string
	for _, name := range names {
		if _, err := data.Lookup(name); err != nil {
			return err
		}
		split, err := data.Load(name, data.Options{Dir: cfg.dataDir, Seed: cfg.seed})
		if err != nil {
			if explicit {
				return err
			}
			fmt.Fprintf(stderr, "skipping %s: %v\n", name, err)
			skipped = append(skipped, name)
			continue
		}
		for _, kind := range kindList {
			if kind == models.KindLeNet && split.Train.Image == nil {
				continue
			}
			kcfg := cfg
			if kind == models.KindLeNet && *lenetEpochs > 0 {
				kcfg.epochs = *lenetEpochs
			}
			res, err := trainAndScore(ctx, b, split, name, kind, kcfg, stderr)
			if err != nil {
				return err
			}
			rows = append(rows, res)
			if *modelsOut != "" {
				dir := filepath.Join(*modelsOut, name, string(kind))
				if err := res.model.Save(dir); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "saved %s %s to %s\n", name, kind, dir)
			}
		}
	}
	table := perfMarkdown(rows)
	fmt.Fprintln(stdout, table)
	if len(skipped) > 0 {
		fmt.Fprintf(stdout, "Not available here (run 'eccco data fetch NAME'): %s\n", strings.Join(skipped, ", "))
	}
	if *out != "none" {
		if err := writePerf(*out, rows, table); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(*out, "perf.csv"), filepath.Join(*out, "perf.md"))
	}
	if *strict {
		var below []string
		for _, r := range rows {
			if p, ok := models.Published(r.dataset, r.kind); ok && r.scores.Accuracy < p.Accuracy-perfTolerance {
				below = append(below, fmt.Sprintf("%s/%s %.3f < %.2f−%.2f", r.dataset, r.kind, r.scores.Accuracy, p.Accuracy, perfTolerance))
			}
		}
		if len(below) > 0 {
			return fmt.Errorf("perf: accuracy below the paper's by more than %.2f: %s", perfTolerance, strings.Join(below, "; "))
		}
	}
	return nil
}

func perfMarkdown(rows []*trained) string {
	var sb strings.Builder
	sb.WriteString("| Dataset | Model | Accuracy | Precision | F1 | Paper accuracy | Δ accuracy | Train rows | Epochs | Train time (s) |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		paper, delta := "–", "–"
		if p, ok := models.Published(r.dataset, r.kind); ok {
			paper = fmt.Sprintf("%.2f", p.Accuracy)
			d := r.scores.Accuracy - p.Accuracy
			delta = fmt.Sprintf("%+.3f", d)
			if d < -perfTolerance {
				delta += " ✗"
			}
		}
		fmt.Fprintf(&sb, "| %s | %s | %.3f | %.3f | %.3f | %s | %s | %d | %d | %.1f |\n",
			r.dataset, r.kind.Title(), r.scores.Accuracy, r.scores.Precision, r.scores.F1, paper, delta, r.trainN, r.epochs, r.duration.Seconds())
	}
	return sb.String()
}

func writePerf(dir string, rows []*trained, table string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing perf results: %w", err)
	}
	f, err := os.CreateTemp(dir, ".perf-*.csv")
	if err != nil {
		return fmt.Errorf("writing perf results: %w", err)
	}
	w := csv.NewWriter(f)
	_ = w.Write([]string{"dataset", "model", "accuracy", "precision", "f1", "paper_accuracy", "paper_precision", "paper_f1", "train_rows", "test_rows", "epochs", "train_seconds"})
	for _, r := range rows {
		pa, pp, pf := math.NaN(), math.NaN(), math.NaN()
		if p, ok := models.Published(r.dataset, r.kind); ok {
			pa, pp, pf = p.Accuracy, p.Precision, p.F1
		}
		ff := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
		_ = w.Write([]string{r.dataset, string(r.kind), ff(r.scores.Accuracy), ff(r.scores.Precision), ff(r.scores.F1),
			ff(pa), ff(pp), ff(pf), strconv.Itoa(r.trainN), strconv.Itoa(r.testN), strconv.Itoa(r.epochs), strconv.FormatFloat(r.duration.Seconds(), 'f', 2, 64)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("writing perf results: %w", err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, "perf.csv")); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "perf.md"), []byte(table), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "perf.tex"), []byte(perfLaTeX(rows)), 0o644)
}

// perfLaTeX renders the model-performance table in the layout of the paper's table_perf.tex (booktabs).
func perfLaTeX(rows []*trained) string {
	var sb strings.Builder
	sb.WriteString("\\begin{table}\n\\caption{Test performance of the models (ours; the paper's accuracy in brackets).}\n\\centering\n")
	sb.WriteString("\\begin{tabular}{llrrr}\n\\toprule\nDataset & Model & Accuracy & Precision & F1\\\\\n\\midrule\n")
	for _, r := range rows {
		paper := ""
		if p, ok := models.Published(r.dataset, r.kind); ok {
			paper = fmt.Sprintf(" (%.2f)", p.Accuracy)
		}
		fmt.Fprintf(&sb, "%s & %s & %.2f%s & %.2f & %.2f\\\\\n", r.dataset, r.kind.Title(), r.scores.Accuracy, paper, r.scores.Precision, r.scores.F1)
	}
	sb.WriteString("\\bottomrule\n\\end{tabular}\n\\end{table}\n")
	return sb.String()
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/report"
)

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := "."
	if wd, err := os.Getwd(); err == nil {
		if r, ok := data.ModuleRoot(wd); ok {
			root = r
		}
	}
	at := func(p string) string { return filepath.Join(root, p) }
	fs := newFlagSet("report", "report [--results DIR] [--paper-mode DIR] [--replay-only DIR] [--perf FILE] [--figures DIR] [--stages FILE] [--out DIR] [--markdown FILE] [--pdf FILE] [--quick] [--replace]", stderr)
	var cfg report.Config
	fs.StringVar(&cfg.Results, "results", at("paper/results"), "benchmark results: a directory of 'eccco bench --out' (results.csv, units/) or of its tables (cells.csv, comparison.md)")
	paperMode := at("paper/results-paper-mode")
	if st, err := os.Stat(paperMode); err != nil || !st.IsDir() {
		paperMode = ""
	}
	replayOnly := at("paper/results-replay-only")
	if st, err := os.Stat(replayOnly); err != nil || !st.IsDir() {
		replayOnly = ""
	}
	fs.StringVar(&cfg.ReplayOnly, "replay-only", replayOnly, "results of the authors'-code mode without its fitted switches ('eccco bench --mode authors-code --set target-mix=,energy-decay-rate=0,energy-decay-every=0,vision-cost=0,vision-l1-energy=0'), whose counts are given beside the main ones (\"\" for none)")
	secondSeed := at("paper/results-seed43")
	if st, err := os.Stat(secondSeed); err != nil || !st.IsDir() {
		secondSeed = ""
	}
	fs.StringVar(&cfg.SecondSeed, "second-seed", secondSeed, "results of the same mode under another seed ('eccco bench --seed 43'), compared cell by cell with the main ones on its data sets (\"\" for none)")
	fs.StringVar(&cfg.PaperMode, "paper-mode", paperMode, "results of the paper's equations ('eccco bench --mode paper'), on which the paper's claims are checked too (\"\" for none)")
	fs.StringVar(&cfg.Perf, "perf", at("paper/model-performance.csv"), "model-performance CSV of 'eccco perf' (\"\" for none)")
	fs.StringVar(&cfg.Figures, "figures", at("figures/gallery"), "directory of the figures as NAME.png ('eccco figures'; \"\" for none)")
	fs.StringVar(&cfg.Stages, "stages", "", "stage timings of reproduce.sh (stages.tsv: stage, wall seconds, status, CPU seconds) for the provenance")
	fs.BoolVar(&cfg.Quick, "quick", false, "label the report as the quick profile's (title page and running header)")
	fs.StringVar(&cfg.Out, "out", at("paper/report"), "directory for the LaTeX sources (eccco-go.tex and figures/)")
	cfg.Name = "eccco-go" // the stem of the sources (and, with --out, of the Markdown and the PDF)
	fs.StringVar(&cfg.Markdown, "markdown", at("paper/eccco-go.md"), "Markdown version (\"\" for none; default OUT/eccco-go.md when --out is given)")
	fs.StringVar(&cfg.PDF, "pdf", at("paper/eccco-go.pdf"), "compiled PDF (\"\" to write the sources only; default OUT/eccco-go.pdf when --out is given); needs pdflatex (scripts/texlive-packages.txt)")
	fs.BoolVar(&cfg.Replace, "replace", false, "overwrite files that eccco report did not generate")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("report: unexpected arguments %v", fs.Args())
	}
	// --out elsewhere keeps the Markdown and the PDF beside the sources unless they are named: the
	// repository's paper/eccco-go.md and .pdf are the defaults of the committed report only.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["out"] && !set["markdown"] {
		cfg.Markdown = filepath.Join(cfg.Out, cfg.Name+".md")
	}
	if set["out"] && !set["pdf"] {
		cfg.PDF = filepath.Join(cfg.Out, cfg.Name+".pdf")
	}
	out, err := report.Make(ctx, cfg)
	if out != nil && out.Written != nil {
		fmt.Fprintf(stdout, "wrote %s (%d figures under %s)\n", out.Written.TeX, len(out.Written.Figures), filepath.Join(cfg.Out, "figures"))
		if out.Written.Markdown != "" {
			fmt.Fprintf(stdout, "wrote %s\n", out.Written.Markdown)
		}
	}
	if errors.Is(err, report.ErrNoTeX) {
		return fmt.Errorf("the LaTeX sources are written but the PDF is not: %w", err)
	}
	if err != nil {
		return err
	}
	if out.PDF != "" {
		fmt.Fprintf(stdout, "wrote %s (%d pages)\n", out.PDF, out.Pages)
	}
	return nil
}

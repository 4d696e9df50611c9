package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/internal/outdir"

	"github.com/eccco-go/eccco-go/eccco/benchmark"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/figures"
	"github.com/eccco-go/eccco-go/eccco/internal/progress"
)

func runFigures(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("figures", "figures [--only NAME,...] [--list] [--out figures] [--results DIR] [--mode paper|authors-code] [flags]", stderr)
	only := fs.String("only", "", "comma-separated figure names (default: every figure whose data sets are available; see --list)")
	list := fs.Bool("list", false, "list the figures (name, the paper's label, caption) and exit")
	out := fs.String("out", "figures", "directory for NAME.png, NAME.svg, NAME.pdf and NAME.criteria.json (the criteria measured)")
	replace := fs.Bool("replace", false, "write into an existing --out folder that eccco did not make (files of the same names are replaced)")
	dpi := fs.Int("dpi", 0, "resolution of the PNG files (0: 300)")
	results := fs.String("results", "", "benchmark directory holding results.csv, for the metric charts (default: none, the charts are skipped)")
	var rec figures.Records
	fs.StringVar(&rec.Dir, "records", "", "directory of per-figure records: a figure whose record holds --records-key and whose files are unchanged is not drawn again (resuming a pass; reproduce.sh)")
	fs.StringVar(&rec.Key, "records-key", "", "with --records: a fingerprint of the figures' inputs; a figure recorded under another key is drawn again")
	var ef expFlags
	ef.register(fs, experiment.SetTraining, experiment.SetSettings)
	ef.registerImageBackend(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("figures: unexpected arguments %v", fs.Args())
	}
	if err := rec.Check(); err != nil {
		return fmt.Errorf("figures: --records %s: %w (--records-key)", rec.Dir, err)
	}
	if rec.Key != "" && rec.Dir == "" {
		return fmt.Errorf("figures: --records-key needs --records DIR")
	}
	specs := figures.Catalog()
	if *only != "" {
		var err error
		if specs, err = figures.Lookup(splitList(*only)...); err != nil {
			return fmt.Errorf("figures: %w", err)
		}
	}
	if !*list {
		var legacy []string // an older eccco's figures folder holds NAME.svg files
		for _, s := range figures.Catalog() {
			legacy = append(legacy, s.Name+".svg")
		}
		if err := outdir.Prepare(*out, *replace, "--out", append(legacy, "gallery/README.md")...); err != nil {
			return fmt.Errorf("figures: %w", err)
		}
	}
	if *list {
		for _, s := range specs {
			label := s.Label
			if label == "" {
				label = "(beyond the paper)"
			}
			fmt.Fprintf(stdout, "%-28s %-22s %s\n", s.Name, label, s.Caption)
			if s.Claim != "" {
				fmt.Fprintf(stdout, "%-28s %-22s criterion: %s\n", "", "", s.Claim)
			}
		}
		return nil
	}
	opts, err := ef.options(stderr)
	if err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	if *dpi < 0 || *dpi > 2400 {
		return fmt.Errorf("figures: --dpi %d: want 0 (300) to 2400", *dpi)
	}
	env := figures.NewEnv(opts)
	env.DPI = *dpi
	if ef.imageBackend != "" {
		if env.Options.ImageBackend, err = backend.Named(ef.imageBackend); err != nil {
			return fmt.Errorf("figures: --image-backend: %w", err)
		}
	}
	if *results != "" {
		if env.Results, err = benchmark.ReadResults(*results); err != nil {
			return fmt.Errorf("figures: %w", err)
		}
	}
	explicit := *only != ""
	var todo []figures.Spec
	for _, s := range specs {
		if reason := unavailable(s, env); reason != "" {
			if explicit {
				return fmt.Errorf("figures: %s: %s", s.Name, reason)
			}
			if !strings.HasPrefix(s.Name, "bench-") {
				fmt.Fprintf(stderr, "skipping %s: %s\n", s.Name, reason)
			}
			continue
		}
		todo = append(todo, s)
	}
	bar := progress.New(stderr, len(todo), "figures", "figures")
	written, kept := 0, 0
	for _, s := range todo {
		bar.Describe(s.Name)
		if rec.Dir != "" && rec.Current(s.Name) {
			bar.Add(1)
			kept++
			fmt.Fprintf(stdout, "%-28s up to date (its record in %s)\n", s.Name, rec.Dir)
			continue
		}
		start := time.Now()
		paths, crit, err := s.Write(ctx, env, *out)
		if err != nil {
			bar.Finish()
			return fmt.Errorf("figures: %w", err)
		}
		if rec.Dir != "" {
			if err := rec.Mark(s.Name, paths); err != nil {
				bar.Finish()
				return fmt.Errorf("figures: %w", err)
			}
		}
		bar.Add(1)
		written++
		fmt.Fprintf(stdout, "%-28s %5.1f s  %s\n", s.Name, time.Since(start).Seconds(), strings.Join(paths, " "))
		fmt.Fprint(stdout, figures.FormatCriteria(crit, "    "))
	}
	bar.Finish()
	if kept > 0 {
		fmt.Fprintf(stdout, "kept %d figures drawn earlier with the same inputs (--records %s)\n", kept, rec.Dir)
	}
	fmt.Fprintf(stdout, "wrote %d figures to %s (%s mode, seed %d)\n", written, *out, opts.Mode, opts.Seed)
	return nil
}

// unavailable says why a figure cannot be made here ("" if it can).
func unavailable(s figures.Spec, env *figures.Env) string {
	for _, d := range s.Datasets {
		ok, err := data.Present(d, "") // "": data.DefaultDir()
		if err != nil {
			return err.Error()
		}
		if !ok {
			return fmt.Sprintf("%s is not available here (eccco data fetch %s)", d, d)
		}
	}
	if strings.HasPrefix(s.Name, "bench-") {
		if env.Results == nil {
			return figures.ErrNoResults.Error() + " (pass --results DIR)"
		}
		if _, err := s.Make(context.Background(), env); err != nil && !errors.Is(err, figures.ErrNoResults) {
			return err.Error()
		}
	}
	return ""
}

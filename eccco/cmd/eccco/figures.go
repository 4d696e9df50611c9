package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	if len(args) > 0 && args[0] == "list" {
		if len(args) > 1 {
			return fmt.Errorf("figures list: unexpected arguments %v (it lists every figure)", args[1:])
		}
		for _, s := range figures.Catalog() {
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
	fs := newFlagSet("figures", "figures [--only NAME,...] [--out figures] [--results DIR] [--mode paper|authors-code] [flags]; 'eccco figures list' names the figures", stderr)
	only := fs.String("only", "", "comma-separated figure names (default: every figure whose data sets are available; 'eccco figures list' names them)")
	out := fs.String("out", "figures", "directory for NAME.png, NAME.svg, NAME.pdf and NAME.criteria.json (the criteria measured)")
	replace := fs.Bool("replace", false, "write into an existing --out folder that eccco did not make (files of the same names are replaced)")
	dpi := fs.Int("dpi", 0, "resolution of the PNG files (0: 300)")
	results := fs.String("results", "", "benchmark directory holding results.csv, for the metric charts (default: none, the charts are skipped)")
	var rec figures.Records
	fs.StringVar(&rec.Dir, "records", "", "directory of per-figure records: a figure recorded there from the same inputs (this eccco binary, these flags, the --results, the data sets present) whose files are unchanged is not drawn again (resuming a pass; eccco reproduce)")
	var ef expFlags
	ef.register(fs, experiment.SetTraining, experiment.SetSettings)
	ef.registerImageBackend(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("figures: unexpected arguments %v", fs.Args())
	}
	if rec.Dir != "" {
		key, err := figuresInputsKey(args, *results)
		if err != nil {
			return fmt.Errorf("figures: --records %s: %w", rec.Dir, err)
		}
		rec.Key = key
	}
	specs := figures.Catalog()
	if *only != "" {
		var err error
		if specs, err = figures.Lookup(splitList(*only)...); err != nil {
			return fmt.Errorf("figures: %w", err)
		}
	}
	var legacy []string // an older eccco's figures folder holds NAME.svg files
	for _, s := range figures.Catalog() {
		legacy = append(legacy, s.Name+".svg")
	}
	if err := outdir.Prepare(*out, *replace, "--out", append(legacy, "gallery/README.md")...); err != nil {
		return fmt.Errorf("figures: %w", err)
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

// figuresInputsKey is the fingerprint under which --records records a figure: the SHA-256 of the running
// executable, of the arguments but --records, of results/results.csv (when given) and of which data sets
// are present in the data directory. The figures' models are not in it: missing ones are trained from
// these same inputs, to the same bytes.
func figuresInputsKey(args []string, results string) (string, error) {
	h := sha256.New()
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding this program's file: %w", err)
	}
	if err := hashFile(h, exe); err != nil {
		return "", err
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-records" || a == "--records":
			i++
			continue
		case strings.HasPrefix(a, "-records=") || strings.HasPrefix(a, "--records="):
			continue
		}
		fmt.Fprintf(h, "arg %q\n", a)
	}
	if results != "" {
		if err := hashFile(h, filepath.Join(results, "results.csv")); err != nil {
			return "", err
		}
	}
	dir := data.DefaultDir()
	for _, name := range data.Names() {
		ok, err := data.Present(name, dir)
		fmt.Fprintf(h, "data %s %v\n", name, err == nil && ok)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file of %d bytes\n", st.Size())
	_, err = io.Copy(h, f)
	return err
}

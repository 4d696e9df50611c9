package report

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/compare"
	"github.com/eccco-go/eccco-go/eccco/data"
)

// Config names the inputs and outputs of a report, as `eccco report` takes them. Relative paths are
// taken as they are (from the working directory).
type Config struct {
	// Results is a benchmark directory (`eccco bench --out DIR`) or a tables directory (paper/results).
	Results string
	// PaperMode is a second result directory made with the paper's equations (paper/results-paper-mode),
	// on which the paper's claims are checked beside Results; "" for none.
	PaperMode string
	// ReplayOnly is a result directory of the authors'-code mode without its fitted switches
	// (paper/results-replay-only; experiment.FittedOff), whose counts the report gives beside Results';
	// "" for none.
	ReplayOnly string
	// SecondSeed is a result directory of the same mode under another seed (paper/results-seed43), whose
	// cells are compared with Results' on its data sets (compare.SeedShifts); "" for none.
	SecondSeed string
	// Perf is the model-performance CSV (paper/model-performance.csv, or perf.csv of `eccco perf`); "" for none.
	Perf string
	// Published is the paper's numbers (paper/published-results.csv); "" for compare.DefaultPublished().
	Published string
	// Figures is a directory of NAME.png files (`eccco figures`, figures/gallery); "" for none.
	Figures string
	// FigureNotes is the gallery's README with a note per figure; "" to use the figures directory's parent's
	// README.md when Figures is a "gallery" folder (the notes describe those images), else none.
	FigureNotes string
	// Stages is reproduce.sh's stages.tsv ("" for none).
	Stages string
	// Quick labels the report as the quick profile's (title page and running header).
	Quick bool
	// Out receives the LaTeX sources (OUT/NAME.tex, OUT/figures/); Name is their stem ("" for eccco-go).
	Out, Name string
	// Markdown is where the Markdown version goes ("" for none); PDF where the compiled PDF goes ("" to
	// write the sources only).
	Markdown, PDF string
	// Replace overwrites files that eccco report did not generate.
	Replace bool
	// DataDir is where the data sets are looked up, to name those not available ("" = data.DefaultDir()).
	DataDir string
}

// Outcome is what Make did.
type Outcome struct {
	Document *Document
	Written  *Written
	// PDF is the compiled PDF's path and Pages its page count ("" and 0 when not compiled).
	PDF   string
	Pages int
}

// Make reads the inputs, builds the report, writes its LaTeX sources and Markdown version and, when
// cfg.PDF is set, compiles it. Without TeX the sources are still written and the error is ErrNoTeX.
func Make(ctx context.Context, cfg Config) (*Outcome, error) {
	if cfg.Results == "" || cfg.Out == "" {
		return nil, errors.New("report: the results directory and the output directory are required")
	}
	root := "."
	if wd, err := os.Getwd(); err == nil {
		if r, ok := data.ModuleRoot(wd); ok {
			root = r
		}
	}
	res, err := LoadResults(cfg.Results)
	if err != nil {
		return nil, err
	}
	in := Inputs{Results: res, FiguresDir: cfg.Figures}
	sources := [][2]string{{"results", cfg.Results}}
	if cfg.PaperMode != "" {
		if in.PaperMode, err = LoadResults(cfg.PaperMode); err != nil {
			return nil, err
		}
		sources = append(sources, [2]string{"results of the paper's equations", cfg.PaperMode})
	}
	if cfg.ReplayOnly != "" {
		if in.ReplayOnly, err = LoadResults(cfg.ReplayOnly); err != nil {
			return nil, err
		}
		sources = append(sources, [2]string{"replay-only results (fitted switches off)", cfg.ReplayOnly})
	}
	if cfg.SecondSeed != "" {
		if in.SecondSeed, err = LoadResults(cfg.SecondSeed); err != nil {
			return nil, err
		}
		sources = append(sources, [2]string{"results under a second seed", cfg.SecondSeed})
	}
	if cfg.Perf != "" {
		if in.Performance, err = ReadPerformance(cfg.Perf); err != nil {
			return nil, err
		}
		sources = append(sources, [2]string{"model performance", cfg.Perf})
	}
	published := cfg.Published
	if published == "" {
		published = compare.DefaultPublished()
	}
	if in.Published, err = compare.ReadPublished(published); err != nil {
		if cfg.Published != "" || !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("report: %w", err)
		}
		in.Published = nil
	} else {
		sources = append(sources, [2]string{"published numbers", published})
	}
	if cfg.Figures != "" {
		if st, err := os.Stat(cfg.Figures); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("report: the figures directory %s is not a directory (run `eccco figures --out %s`)", cfg.Figures, cfg.Figures)
		}
		sources = append(sources, [2]string{"figures", cfg.Figures})
		notes := cfg.FigureNotes
		if notes == "" && filepath.Base(filepath.Clean(cfg.Figures)) == "gallery" {
			if p := filepath.Join(filepath.Dir(filepath.Clean(cfg.Figures)), "README.md"); fileExists(p) {
				notes = p
			}
		}
		if notes != "" {
			if in.FigureNotes, err = ReadFigureNotes(notes); err != nil {
				return nil, err
			}
			if in.FigureSettings, err = FigureSettings(notes); err != nil {
				return nil, err
			}
			sources = append(sources, [2]string{"figure notes", notes})
		}
	}
	if cfg.Stages != "" {
		if in.Stages, err = ReadStages(cfg.Stages); err != nil {
			return nil, err
		}
		sources = append(sources, [2]string{StagesSource, cfg.Stages})
	}
	for i, src := range sources { // paths inside the checkout as relative to its root
		if abs, err := filepath.Abs(src[1]); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
				sources[i][1] = filepath.ToSlash(rel)
			}
		}
	}
	for _, name := range data.Names() {
		ok, err := data.Present(name, cfg.DataDir)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		if !ok {
			in.Unavailable = append(in.Unavailable, name)
		}
	}
	in.Provenance = Provenance{Backend: backend.Config(), Machine: ThisMachine(), Profile: "full protocol", Sources: sources}
	rv := ReadRevision(root)
	in.Provenance.Commit, in.Provenance.Dirty = rv.Rev, rv.Dirty
	if cfg.Quick {
		in.Banner = QuickBanner(in.Performance)
		in.Provenance.Profile = "quick profile (reproduce.sh --quick): " + in.Banner
	}
	doc, err := Build(in)
	if err != nil {
		return nil, err
	}
	w, err := Write(doc, WriteOptions{Dir: cfg.Out, Name: cfg.Name, Markdown: cfg.Markdown, Replace: cfg.Replace})
	if err != nil {
		return nil, err
	}
	out := &Outcome{Document: doc, Written: w}
	if cfg.PDF == "" {
		return out, nil
	}
	pages, err := Compile(ctx, w.TeX, cfg.PDF, cfg.Replace)
	if err != nil {
		return out, err
	}
	out.PDF, out.Pages = cfg.PDF, pages
	return out, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Package notebook is the little that the GoNB notebooks in notebooks/ need beyond the library: the
// experiment options of the quick and the full settings, and showing figures and tables inline. It is
// the only package that imports GoNB's gonbui; outside a notebook its display calls do nothing.
//
// A notebook cell reads:
//
//	%%
//	defer gonbui.Sync()
//	e := notebook.Must(experiment.Open("moons", notebook.Options(full)))   // AuthorsOptions: the authors' code
//	gens := notebook.Must(experiment.ParseGenerators("ECCCo", "Wachter"))
//	xs := notebook.Must(e.Explain(ctx, models.KindJEM, 20, gens...))
//	notebook.Markdown(experiment.SummaryTable(xs))
package notebook

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/plot"
	"github.com/janpfeifer/gonb/gonbui"
)

// QuickEnv is the environment variable that forces the quick settings (ECCCO_QUICK=1, as the headless
// notebook test and CI set it).
const QuickEnv = "ECCCO_QUICK"

// Quick reports whether a notebook runs with its quick settings: always when ECCCO_QUICK=1, else unless
// the notebook asks for the full ones.
func Quick(full bool) bool { return !full || os.Getenv(QuickEnv) == "1" }

// Options are the experiment options of the notebooks in the paper's equations (the mode of the figures):
//   - quick (full false, or ECCCO_QUICK=1): 5-epoch models (LeNet-5: 1 epoch) in runs/quick/models, the
//     models of ./reproduce.sh --quick;
//   - full: the paper's training settings, in runs/models, the models of ./reproduce.sh.
//
// Training progress goes to standard error, one line per 10 %.
func Options(full bool) experiment.Options { return OptionsFor(experiment.Paper, full) }

// AuthorsOptions are Options in the authors'-code mode: the mode of the published numbers and of the
// benchmark of ./reproduce.sh.
func AuthorsOptions(full bool) experiment.Options { return OptionsFor(experiment.AuthorsCode, full) }

// OptionsFor are Options in a mode.
func OptionsFor(mode experiment.Mode, full bool) experiment.Options {
	_ = os.Setenv("ECCCO_PROGRESS", "lines")
	o := experiment.Options{Mode: mode, Progress: os.Stderr, Log: os.Stderr}
	if Quick(full) {
		o.ModelsDir = filepath.Join(root(), "runs", "quick", "models")
		o.Training = experiment.Training{Epochs: 5, LeNetEpochs: 1}
	}
	return o
}

// root is the repository's root (notebooks run in notebooks/).
func root() string {
	if wd, err := os.Getwd(); err == nil {
		if r, ok := data.ModuleRoot(wd); ok {
			return r
		}
	}
	return "."
}

// Path returns a path inside the repository, e.g. Path("runs", "quick", "bench").
func Path(elem ...string) string { return filepath.Join(append([]string{root()}, elem...)...) }

// ScreenDPI is the resolution of figures shown inline.
const ScreenDPI = 110

// Show displays a figure inline as a PNG at ScreenDPI.
func Show(f plot.Figure) {
	f.DPI = ScreenDPI
	png, err := f.PNG()
	if err != nil {
		fmt.Fprintln(os.Stderr, "showing the figure:", err)
		return
	}
	gonbui.DisplayPng(png)
}

// Markdown displays Markdown (tables included).
func Markdown(md string) { gonbui.DisplayMarkdown(md) }

// Must returns v, or stops the cell with err: notebook cells are short, and an error ends them anyway.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Package notebook is what the GoNB notebooks in notebooks/ need beyond the library. It holds the
// experiment options of the quick and the full settings and shows figures and tables inline. It is
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
//
// A data set that is not on disk (MNIST before notebooks/setup.sh fetched it) is not an error in a notebook:
// Open says so in a Markdown output and the cell returns.
//
// The first cell of every notebook is not Go (the go.work it writes must exist before a cell can import
// this package): notebooks/workspace.sh writes it.
package notebook

import (
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/plot"
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// QuickEnv is the environment variable that forces the settings: ECCCO_QUICK=1 the quick ones (as the
// headless notebook test and CI set it), ECCCO_QUICK=0 the full ones (as ./reproduce.sh's full profile
// sets it for the executed copies it keeps in paper/notebooks/).
const QuickEnv = "ECCCO_QUICK"

// Quick reports whether a notebook runs with its quick settings: always when ECCCO_QUICK=1, never when
// ECCCO_QUICK=0, else unless the notebook asks for the full ones.
func Quick(full bool) bool {
	switch os.Getenv(QuickEnv) {
	case "1":
		return true
	case "0":
		return false
	}
	return !full
}

// Options are the experiment options of the notebooks in the paper's equations (the mode of the figures):
//   - quick (full false, or ECCCO_QUICK=1): 5-epoch models (LeNet-5: 1 epoch) in runs/quick/models, the
//     models of ./reproduce.sh --quick;
//   - full: the paper's training settings, in runs/models, the models of ./reproduce.sh; MNIST and
//     Fashion-MNIST on the backend of backend.ImagesConfig (XLA's CPU plugin where notebooks/setup.sh
//     installed it and the kernel builds with -tags xla, else the default). A backend that ECCCO_IMAGE_BACKEND
//     names and that does not start stops the cell; XLA chosen by "auto" that does not start leaves the
//     image sets on the default, said on the status line.
//
// The quick settings keep every set on the default backend (each cell is a process of its own and compiles
// its graphs again; notebooks/README.md has the timings behind this choice).
//
// Training progress and the models loaded or trained show as one grey status line under the cell, updated
// in place, with paths relative to the repository (Status).
func Options(full bool) experiment.Options { return OptionsFor(experiment.Paper, full) }

// AuthorsOptions are Options in the authors'-code mode: the mode of the published numbers and of the
// benchmark of ./reproduce.sh.
func AuthorsOptions(full bool) experiment.Options { return OptionsFor(experiment.AuthorsCode, full) }

// OptionsFor are Options in a mode.
func OptionsFor(mode experiment.Mode, full bool) experiment.Options {
	_ = os.Setenv("ECCCO_PROGRESS", "lines")
	o := experiment.Options{Mode: mode, Progress: Status(), Log: Status()}
	if Quick(full) {
		o.ModelsDir = filepath.Join(root(), "runs", "quick", "models")
		o.Training = experiment.Training{Epochs: 5, LeNetEpochs: 1}
		return o
	}
	if config, why := backend.ImagesConfig(); config != "" {
		b, err := backend.Named(config)
		if err != nil {
			if v := strings.TrimSpace(os.Getenv(backend.ImagesEnvVar)); v != "" && v != "auto" {
				panic(fmt.Errorf("%s=%s: %w", backend.ImagesEnvVar, v, err)) // asked for by name: stop the cell (Must)
			}
			fmt.Fprintf(o.Log, "MNIST and Fashion-MNIST stay on %s: %s (%s): %v\n", backend.Config(), config, why, err)
			return o
		}
		o.ImageBackend = b
		fmt.Fprintf(o.Log, "MNIST and Fashion-MNIST run on %s (%s)\n", config, why)
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

// Printf shows formatted text as a plain-text output of the cell; outside a notebook it writes to
// standard output. Cells print through it, not fmt.Print: GoNB forwards a cell's standard output and its
// displays (tables, figures, status lines) through two pipes, and the kernel interleaves them — and
// splits standard output into messages — in whatever order they arrive, so the same cell saved twice
// differs. Text sent as a display travels the displays' pipe, in the order the cell wrote it.
func Printf(format string, a ...any) { printText(fmt.Sprintf(format, a...)) }

// Print is Printf with fmt.Sprint's formatting.
func Print(a ...any) { printText(fmt.Sprint(a...)) }

// Println is Printf with fmt.Sprintln's formatting.
func Println(a ...any) { printText(fmt.Sprintln(a...)) }

// printText is where Printf, Print and Println send their text (a variable for the tests).
var printText = func(s string) {
	if !gonbui.IsNotebook {
		_, _ = io.WriteString(os.Stdout, s)
		return
	}
	gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{protocol.MIMETextPlain: s}})
}

// Must returns v, or stops the cell with err: notebook cells are short, and an error ends them anyway.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Open opens an experiment on a data set, as experiment.Open. When the data set is not on disk it shows
// a Markdown note that names the command to fetch it and returns nil and false, so that the cell can
// stop quietly:
//
//	e, ok := notebook.Open("mnist", notebook.Options(full))
//	if !ok {
//		return
//	}
//
// Any other error stops the cell (Must).
func Open(dataset string, opts experiment.Options) (*experiment.Experiment, bool) {
	e, err := experiment.Open(dataset, opts)
	if errors.Is(err, data.ErrNotAvailable) {
		Markdown(Missing(dataset))
		return nil, false
	}
	return Must(e, err), true
}

// SkippedMarker starts the note of a skipped cell (an HTML comment, invisible on the page): the headless
// notebook test reads it and does not ask a skipped cell for its expected outputs.
const SkippedMarker = "<!-- eccco:skipped -->"

// Missing is the note Open shows for a data set that is not on disk.
func Missing(dataset string) string {
	return SkippedMarker + "\n" + fmt.Sprintf("> **%s is not available here**, so this cell is skipped. Fetch it with "+
		"`go run ./eccco/cmd/eccco data fetch %s` (or `notebooks/setup.sh`, which fetches the image sets) "+
		"and run the cell again.", dataset, dataset)
}

// status is the process's status line (each cell is a process of its own).
var status struct {
	once sync.Once
	w    *statusLine
}

// Status returns a writer that shows each line written to it as the one grey status line of the cell,
// replacing the line before (gonbui.UpdateHtml), with the repository's absolute path removed. It is
// what Options passes as progress and log: a cell shows "mnist MLP: loaded runs/quick/models/…" or
// "training: 3/5 epochs", not a scroll of lines on standard error. Outside a notebook it writes nothing.
func Status() io.Writer {
	status.once.Do(func() { status.w = &statusLine{id: "eccco-status-" + gonbui.UniqueId(), root: root()} })
	return status.w
}

type statusLine struct {
	mu      sync.Mutex
	id      string
	root    string
	partial string
}

func (s *statusLine) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text := s.partial + string(p)
	lines := strings.Split(text, "\n")
	s.partial = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		if l = strings.TrimSpace(Relative(l, s.root)); l != "" {
			gonbui.UpdateHtml(s.id, `<div style="color:#888;font-size:85%">`+html.EscapeString(l)+`</div>`)
		}
	}
	return len(p), nil
}

// Relative replaces the absolute path root (and root + "/") in s by paths relative to it.
func Relative(s, root string) string {
	if root == "" || root == "." || root == "/" {
		return s
	}
	s = strings.ReplaceAll(s, root+string(filepath.Separator), "")
	return strings.ReplaceAll(s, root, ".")
}

// Must2 is Must for functions that return two values and an error.
func Must2[T, U any](v T, u U, err error) (T, U) {
	if err != nil {
		panic(err)
	}
	return v, u
}

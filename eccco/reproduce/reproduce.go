// Package reproduce runs the reproduction's stages, skips finished work and writes the run's summary.
//
// The stages are data, perf, bench, figures, notebooks and report; their bookkeeping is here: up-to-date
// checks (stamps), a lock per output folder, wall and CPU time per stage, resume across invocations and
// the run's summary (OUT/summary.json, the one definition of a stage's ok; OUT/stages.tsv for the
// report's provenance appendix).
//
// The stages run eccco's own commands in this process (a [Runner], the command line's dispatch, with the
// arguments ./reproduce.sh gave them) and the external tools by exec: the notebooks' tool chain
// (notebooks/setup.sh, go test ./notebooks) and, through eccco report, pdflatex. `eccco reproduce` is
// the command; ./reproduce.sh installs what is missing (XLA's plugin), builds the binary and calls it.
package reproduce

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/internal/clock"
	"github.com/eccco-go/eccco-go/eccco/internal/reportmark"
)

// Runner runs one eccco command (args[0] its name) as the command line does.
type Runner func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Config is what a run is asked for.
type Config struct {
	// Quick selects the quick profile (runs/quick/…); otherwise the paper's full protocol.
	Quick bool
	// Mode is "authors-code" (the default) or "paper".
	Mode string
	// Jobs is how many data sets perf and bench run at once (≥ 1).
	Jobs int
	// Mirror is a local folder of upstream data files (ECCCO_MIRROR; "" for none).
	Mirror string
	// ImageBackend and TabularBackend are the full profile's --image-backend and --tabular-backend
	// ("" for none: the default backend).
	ImageBackend, TabularBackend string
	// Binary is the eccco binary the stamps fingerprint ("" for this process's executable).
	Binary string
	// Run runs eccco's commands; Exec runs an external tool (nil: os/exec, in the current folder).
	Run  Runner
	Exec func(ctx context.Context, stdout, stderr io.Writer, env []string, name string, args ...string) error
	// HasTeX reports whether pdflatex is there (nil: looked up on PATH).
	HasTeX func() bool
	// Stdout and Stderr receive the stages' output.
	Stdout, Stderr io.Writer
}

// Stage names, in the order they run.
var Stages = []string{"data", "perf", "bench", "figures", "notebooks", "report"}

// plan is a profile's folders and each command's arguments.
type plan struct {
	profile, mode                     string
	out, modelsDir, perfOut, benchOut string
	publish                           bool
	perf, bench, figures, report      []string
	reportOut, pdf                    string
}

// Out is the output folder of a profile and mode (stages.tsv, summary.json, the lock).
func Out(quick bool, mode string) string {
	switch {
	case quick && mode == "paper":
		return "runs/quick-paper-mode"
	case quick:
		return "runs/quick"
	case mode == "paper":
		return "runs/paper-mode"
	}
	return "runs"
}

func newPlan(c Config) plan {
	p := plan{profile: "paper", mode: c.Mode, out: Out(c.Quick, c.Mode)}
	jobs := strconv.Itoa(c.Jobs)
	if c.Quick {
		p.profile = "quick"
		common := []string{"--mode", c.Mode, "--set", "epochs=5", "--models-dir", p.out + "/models"}
		// German Credit is left out: in the authors'-code mode its models are fitted on a class-sorted half
		// of the data, and 5-epoch models predict a single class, so no factual of the other one can be
		// drawn (the authors' benchmark stops there too).
		p.perf = append([]string{"--data", "linearly-separable,moons,circles", "--skip-missing", "--models", "mlp,mlp-ensemble,jem,jem-ensemble", "--jobs", jobs}, common...)
		p.bench = append([]string{"--data", "linearly-separable,moons,circles", "--skip-missing", "--runs", "2", "--factuals", "20", "--jobs", jobs}, common...)
		p.modelsDir = p.out + "/models"
		p.figures = []string{"--mode", "paper", "--set", "epochs=5,lenet-epochs=1", "--models-dir", p.modelsDir}
		p.perfOut, p.benchOut = p.out+"/perf", p.out+"/bench"
		p.reportOut, p.pdf = p.out+"/report", p.out+"/report/eccco-go.pdf" // never over paper/eccco-go.pdf
		p.report = []string{"--quick", "--results", p.benchOut, "--paper-mode", "", "--replay-only", "", "--second-seed", "",
			"--perf", p.perfOut + "/perf.csv", "--figures", "figures", "--out", p.reportOut, "--markdown", p.reportOut + "/eccco-go.md"}
		return p
	}
	var image, tabular []string
	if c.ImageBackend != "" {
		image = []string{"--image-backend", c.ImageBackend}
	}
	if c.TabularBackend != "" {
		tabular = []string{"--tabular-backend", c.TabularBackend}
	}
	p.perf = slices.Concat([]string{"--data", "all", "--models", "mlp,mlp-ensemble,jem,jem-ensemble,lenet", "--mode", c.Mode, "--jobs", jobs}, image)
	p.bench = slices.Concat([]string{"--data", "all", "--mode", c.Mode, "--jobs", jobs}, image, tabular)
	p.modelsDir = "runs/models"
	p.figures = slices.Concat([]string{"--mode", "paper"}, image) // the paper's concepts, in its equations
	if c.Mode == "authors-code" {
		p.perfOut, p.benchOut, p.publish = "runs/perf", "runs/bench", true
		// The committed report: sources in paper/report/ with the committed 100-DPI gallery (small), the
		// Markdown version in paper/eccco-go.md.
		p.reportOut, p.pdf = "paper/report", "paper/eccco-go.pdf"
		p.report = []string{"--results", "paper/results", "--perf", "paper/model-performance.csv", "--figures", "figures/gallery",
			"--out", p.reportOut, "--markdown", "paper/eccco-go.md"}
		return p
	}
	p.perfOut, p.benchOut = p.out+"/perf", p.out+"/bench"
	p.reportOut, p.pdf = p.out+"/report", p.out+"/report/eccco-go.pdf"
	p.report = []string{"--results", p.benchOut, "--paper-mode", "", "--replay-only", "", "--second-seed", "",
		"--perf", p.perfOut + "/perf.csv", "--figures", "figures", "--out", p.reportOut, "--markdown", p.reportOut + "/eccco-go.md"}
	return p
}

// InterruptedError is returned when a signal stopped the run; Code is the exit status a shell gives
// for it (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).
type InterruptedError struct {
	Stage  string
	Signal os.Signal
}

func (e *InterruptedError) Error() string {
	if e.Signal == nil {
		return fmt.Sprintf("interrupted in stage %s; run it again to resume (finished work is kept)", e.Stage)
	}
	return fmt.Sprintf("interrupted (%v) in stage %s; run it again to resume (finished work is kept)", e.Signal, e.Stage)
}

// Code is the exit status for the signal (1 where the run was cancelled otherwise).
func (e *InterruptedError) Code() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// StageError is returned when a stage failed.
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string {
	return fmt.Sprintf("stage %s failed: %v; fix the cause and run it again: finished work is kept", e.Stage, e.Err)
}

func (e *StageError) Unwrap() error { return e.Err }

// run is one invocation's state.
type run struct {
	Config
	plan
	ctx       context.Context
	dataDir   string
	binKey    string
	stages    []StageResult
	prior     map[string]StageResult
	sigMu     sync.Mutex
	signalled os.Signal
}

// Run runs the stages not yet done of the profile c asks for, in the current folder (the repository's
// root), and returns the run's summary (also written to OUT/summary.json after every stage).
func Run(ctx context.Context, c Config) (*Summary, error) {
	if c.Mode == "" {
		c.Mode = "authors-code"
	}
	if c.Mode != "authors-code" && c.Mode != "paper" {
		return nil, fmt.Errorf("--mode must be authors-code or paper, not %q", c.Mode)
	}
	if c.Jobs < 1 {
		return nil, fmt.Errorf("jobs must be a whole number ≥ 1, not %d", c.Jobs)
	}
	if c.Run == nil {
		return nil, errors.New("reproduce: no Runner")
	}
	if c.Exec == nil {
		c.Exec = execTool
	}
	if c.HasTeX == nil {
		c.HasTeX = func() bool { _, err := exec.LookPath("pdflatex"); return err == nil }
	}
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	r := &run{Config: c, plan: newPlan(c), dataDir: data.DefaultDir()}
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lock(r.out)
	if err != nil {
		return nil, err
	}
	defer unlock()

	// Ctrl-C, kill and a closed terminal: the running command is cancelled (a benchmark unit being
	// written is finished and recorded), its time so far is recorded, and the run stops.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sigs, done := make(chan os.Signal, 1), make(chan struct{})
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	defer close(done)
	go func() {
		select {
		case s := <-sigs:
			r.sigMu.Lock()
			r.signalled = s
			r.sigMu.Unlock()
			cancel()
		case <-done:
		}
	}()
	r.ctx = ctx

	bin := c.Binary
	if bin == "" {
		bin = "/proc/self/exe" // the running binary, even when a build has since replaced the file
		if _, err := os.Stat(bin); err != nil {
			bin, _ = os.Executable()
		}
	}
	r.binKey = stampKey(bin)

	if err := r.Run(ctx, []string{"backend"}, r.Stdout, r.Stderr); err != nil {
		return nil, err
	}
	if r.Jobs > 1 {
		fmt.Fprintf(r.Stdout, "perf and bench: %d data sets at a time (ECCCO_JOBS)\n", r.Jobs)
	}
	if !r.Quick && r.ImageBackend != "" {
		fmt.Fprintf(r.Stdout, "image data sets: %s (ECCCO_IMAGE_BACKEND=go keeps them on the backend above)\n", r.ImageBackend)
	}
	if !r.Quick && r.TabularBackend != "" {
		fmt.Fprintf(r.Stdout, "synthetic and tabular benchmark: %s (unset ECCCO_TABULAR_BACKEND to keep it on the backend above)\n", r.TabularBackend)
	}

	unfinished := filepath.Join(r.out, ".stages.unfinished")
	if _, err := os.Stat(unfinished); err == nil {
		if r.prior, err = readPrior(r.out); err != nil {
			return nil, fmt.Errorf("resuming the unfinished run in %s: %w", r.out, err)
		}
		if len(r.prior) > 0 {
			fmt.Fprintf(r.Stdout, "(resuming an unfinished run: each stage's time in %s adds to the one recorded)\n", filepath.Join(r.out, StagesFile))
		}
	}
	if err := os.WriteFile(unfinished, nil, 0o644); err != nil {
		return nil, err
	}

	dataOut := os.Getenv("ECCCO_DATA_DIR")
	if dataOut == "" {
		dataOut = "data/cache"
	}
	steps := []struct {
		name, desc string
		outputs    []string
		do         func() (Outcome, error)
	}{
		{"data", "fetch (sha256-checked) or copy the data sets", []string{dataOut + "/"}, r.dataStage},
		{"perf", "train or load the models and score them (the paper's Table 5)", []string{r.perfOut + "/perf.md"}, r.perfStage},
		{"bench", "the counterfactual benchmark (resumable units) and its tables", []string{r.benchOut + "/tables/"}, r.benchStage},
		{"figures", "the paper's figures (PNG, SVG, PDF)", []string{"figures/"}, r.figuresStage},
		{"notebooks", "the notebooks executed headless", []string{"runs/notebooks/html/"}, r.notebooksStage},
		{"report", "the reproduction report (LaTeX, Markdown, PDF)", []string{r.reportOut + "/", r.pdf}, r.reportStage},
	}
	var figuresBefore string
	for i, st := range steps {
		if st.name == "notebooks" {
			figuresBefore = r.figuresKey()
		}
		if err := r.stage(i+1, len(steps), st.name, st.desc, st.outputs, st.do); err != nil {
			return r.summary(false), err
		}
		if st.name == "notebooks" {
			// The notebooks may save models the figures did not use (a model the figures needed was
			// trained by them first): figures up to date before the notebooks stay so.
			stamp := filepath.Join(r.out, ".figures.stamp")
			if ok, _ := stampMatches(stamp, figuresBefore); ok {
				writeStamp(stamp, r.figuresKey())
			}
		}
	}
	s := r.summary(true)
	if err := writeSummary(filepath.Join(r.out, SummaryFile), s); err != nil {
		return s, err
	}
	r.printSummary()
	os.Remove(unfinished)
	switch {
	case s.PDFKept:
		fmt.Fprintf(r.Stdout, "report: %s, kept (TeX is not installed; it shows the same content as the LaTeX sources in %s/)\n", r.pdf, r.reportOut)
	case s.PDF != "":
		fmt.Fprintf(r.Stdout, "report: %s\n", r.pdf)
	default:
		fmt.Fprintf(r.Stdout, "report: no PDF (TeX is not installed); LaTeX sources in %s/\n", r.reportOut)
	}
	return s, nil
}

// stage runs one stage and records it.
func (r *run) stage(n, of int, name, desc string, outputs []string, do func() (Outcome, error)) error {
	fmt.Fprintf(r.Stdout, "== [%d/%d] %s: %s (started %s)\n", n, of, name, desc, time.Now().Format("15:04:05"))
	t0, c0 := clock.Now(), cpuSeconds()
	o, err := do()
	secs, cpu := clock.Since(t0).Seconds(), cpuSeconds()-c0
	if clock.Frozen() {
		cpu = 0
	}
	interrupted, sig := r.interrupted()
	switch {
	case interrupted:
		o = Outcome{Failed, NoteInterrupted}
	case err != nil:
		o = Outcome{Failed, firstLine(err.Error())}
	case o.Status == "":
		o.Status = OK
	}
	prior, had := r.prior[name]
	// A stage made by an earlier invocation of this run and found up to date now was made as recorded.
	if had && o == (Outcome{Skipped, NoteUpToDate}) && prior.Status == OK {
		o = prior.Outcome()
	}
	res := StageResult{Name: name, Status: o.Status, Note: o.Note, WallSeconds: tenths(tenths(secs) + prior.WallSeconds),
		CPUSeconds: tenths(tenths(cpu) + prior.CPUSeconds), Outputs: outputs}
	r.stages = append(r.stages, res)
	if werr := r.record(); werr != nil && err == nil {
		err = werr
	}
	switch {
	case interrupted:
		fmt.Fprintf(r.Stderr, "eccco reproduce: interrupted in stage %s; run it again to resume (finished work is kept)\n", name)
		return &InterruptedError{Stage: name, Signal: sig}
	case err != nil:
		r.printSummary()
		return &StageError{Stage: name, Err: err}
	}
	return nil
}

// interrupted reports whether the run was cancelled (a signal, or the caller's context: the command
// line cancels it on SIGINT and SIGTERM too) and by which signal (nil where none was seen).
func (r *run) interrupted() (bool, os.Signal) {
	if r.ctx.Err() == nil {
		return false, nil
	}
	for range 20 { // the signal cancelled the caller's context first: give its record a moment
		r.sigMu.Lock()
		sig := r.signalled
		r.sigMu.Unlock()
		if sig != nil {
			return true, sig
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true, nil
}

// record writes stages.tsv and summary.json: this invocation's stages, then those only earlier
// invocations of the run reached.
func (r *run) record() error {
	if err := writeStages(filepath.Join(r.out, StagesFile), r.allStages()); err != nil {
		return err
	}
	return writeSummary(filepath.Join(r.out, SummaryFile), r.summary(false))
}

func (r *run) allStages() []StageResult {
	var all []StageResult
	for _, name := range Stages {
		if i := slices.IndexFunc(r.stages, func(s StageResult) bool { return s.Name == name }); i >= 0 {
			all = append(all, r.stages[i])
		} else if p, ok := r.prior[name]; ok {
			all = append(all, p)
		}
	}
	return all
}

func (r *run) summary(finished bool) *Summary {
	s := &Summary{Profile: r.profile, Mode: r.mode, Finished: finished, Status: OK, Stages: r.allStages(), ReportDir: r.reportOut}
	if s.Stages == nil {
		s.Stages = []StageResult{}
	}
	for _, st := range s.Stages {
		if st.Status == Failed {
			s.Status = Failed
		}
	}
	if !finished {
		s.Status = Failed
	}
	if _, err := os.Stat(r.pdf); err == nil {
		switch {
		case r.HasTeX():
			s.PDF = r.pdf
		case r.keepPDF():
			s.PDF, s.PDFKept = r.pdf, true
		}
	}
	return s
}

func (r *run) printSummary() {
	fmt.Fprintf(r.Stdout, "\n== summary (%s profile, mode %s; stage times in %s, outcome in %s)\n", r.profile, r.mode,
		filepath.Join(r.out, StagesFile), filepath.Join(r.out, SummaryFile))
	width := 28 // the status column: as wide as the longest outcome
	for _, s := range r.stages {
		width = max(width, utf8.RuneCountInString(s.Outcome().String()))
	}
	fmt.Fprintf(r.Stdout, "%-10s %-*s %10s %10s  %s\n", "stage", width, "status", "time", "cpu", "outputs")
	for _, s := range r.stages {
		fmt.Fprintf(r.Stdout, "%-10s %-*s %9.1fs %9.1fs  %s\n", s.Name, width, s.Outcome(), s.WallSeconds, s.CPUSeconds, strings.Join(s.Outputs, ", "))
	}
}

// eccco runs one of eccco's commands.
func (r *run) eccco(args ...string) error { return r.Run(r.ctx, args, r.Stdout, r.Stderr) }

// missingNote says which data sets a stage left out, where some are not available here.
func (r *run) missingNote(what string) Outcome {
	if _, missing := presence(r.dataDir); len(missing) > 0 {
		return Outcome{OK, fmt.Sprintf("%s %s skipped: not available", what, strings.Join(missing, ", "))}
	}
	return Outcome{Status: OK}
}

func (r *run) dataStage() (Outcome, error) {
	args := []string{"data", "fetch", "all"}
	if r.Mirror != "" {
		args = append(args, "--from", r.Mirror)
	}
	if err := r.eccco(args...); err != nil {
		if r.ctx.Err() != nil {
			return Outcome{}, err
		}
		fmt.Fprintln(r.Stderr, "eccco:", err)
		fmt.Fprintln(r.Stdout, "(some data sets are not available here; they are skipped below)")
	}
	if err := r.eccco("data", "list"); err != nil {
		return Outcome{}, err
	}
	return r.missingNote("data sets"), nil
}

func (r *run) perfStage() (Outcome, error) {
	if err := r.eccco(slices.Concat([]string{"perf"}, r.plan.perf, []string{"--out", r.perfOut})...); err != nil {
		return Outcome{}, err
	}
	if r.publish {
		for _, ext := range []string{"md", "csv", "tex"} {
			if err := copyFile(filepath.Join(r.perfOut, "perf."+ext), "paper/model-performance."+ext); err != nil {
				return Outcome{}, err
			}
		}
	}
	return Outcome{}, nil
}

func (r *run) benchStage() (Outcome, error) {
	if err := r.eccco(slices.Concat([]string{"bench"}, r.plan.bench, []string{"--out", r.benchOut})...); err != nil {
		return Outcome{}, err
	}
	if r.publish {
		tables := filepath.Join(r.benchOut, "tables")
		entries, err := os.ReadDir(tables)
		if err != nil {
			return Outcome{}, err
		}
		if err := os.MkdirAll("paper/results", 0o755); err != nil {
			return Outcome{}, err
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				if err := copyFile(filepath.Join(tables, e.Name()), filepath.Join("paper/results", e.Name())); err != nil {
					return Outcome{}, err
				}
			}
		}
	}
	return Outcome{}, nil
}

// figuresKey: the figures' inputs: the binary, the models, the benchmark results and the data sets present.
func (r *run) figuresKey() string {
	list, _ := presence(r.dataDir)
	return hashOf(r.binKey, stampKey(r.modelsDir, filepath.Join(r.benchOut, "results.csv")), list)
}

func (r *run) figuresStage() (Outcome, error) {
	stamp := filepath.Join(r.out, ".figures.stamp")
	pngs, _ := filepath.Glob("figures/*.png")
	if ok, when := stampMatches(stamp, r.figuresKey()); ok && len(pngs) > 0 {
		fmt.Fprintf(r.Stdout, "(figures up to date: their inputs have not changed since %s; delete %s to redraw)\n", when.Format("2006-01-02 15:04:05"), stamp)
		return Outcome{Skipped, NoteUpToDate}, nil
	}
	// Each figure drawn is recorded (OUT/.figures.records/NAME.done: the pass key, its files'
	// checksums), so that a pass killed half-way and run again draws only the figures missing or made
	// from other inputs.
	args := slices.Concat([]string{"figures"}, r.plan.figures, []string{"--results", r.benchOut, "--out", "figures",
		"--records", filepath.Join(r.out, ".figures.records")})
	if err := r.eccco(args...); err != nil {
		return Outcome{}, err
	}
	// The figures may have trained models: the key is taken after them.
	if err := writeStamp(stamp, r.figuresKey()); err != nil {
		return Outcome{}, err
	}
	return r.missingNote("figures of"), nil
}

func (r *run) notebooksStage() (Outcome, error) {
	stamp := filepath.Join(r.out, ".notebooks.stamp")
	nbs, _ := filepath.Glob("notebooks/*.ipynb")
	gos, _ := filepath.Glob("notebooks/*.go")
	list, _ := presence(r.dataDir)
	key := hashOf(r.binKey, stampKey(append(nbs, gos...)...), list)
	if ok, when := stampMatches(stamp, key); ok {
		fmt.Fprintf(r.Stdout, "(notebooks up to date since %s; delete %s to run them again)\n", when.Format("2006-01-02 15:04:05"), stamp)
		return Outcome{Skipped, NoteUpToDate}, nil
	}
	if err := r.Exec(r.ctx, io.Discard, io.Discard, nil, "notebooks/setup.sh"); err != nil {
		if r.ctx.Err() != nil {
			return Outcome{}, err
		}
		fmt.Fprintln(r.Stdout, "(notebooks skipped: their tool chain could not be installed here; see notebooks/README.md)")
		return Outcome{Skipped, "no JupyterLab"}, nil
	}
	test := []string{"test", "./notebooks", "-count=1", "-run", "TestNotebooks", "-timeout", "120m"}
	if r.publish {
		// The full profile runs the notebooks with their full settings and commits-ready copies of them,
		// outputs included, to paper/notebooks/ (readable on the code host), naming the commit.
		if err := r.Exec(r.ctx, r.Stdout, r.Stderr, []string{"ECCCO_QUICK=0", "ECCCO_NOTEBOOKS=1"}, "go", test...); err != nil {
			return Outcome{}, err
		}
		if err := r.Exec(r.ctx, r.Stdout, r.Stderr, nil, "python3", "scripts/publish_notebooks.py", "runs/notebooks/executed",
			"paper/notebooks", "--commit", gitCommit(), "--settings", "full"); err != nil {
			return Outcome{}, err
		}
	} else if err := r.Exec(r.ctx, r.Stdout, r.Stderr, []string{"ECCCO_NOTEBOOKS=1"}, "go", test...); err != nil {
		return Outcome{}, err
	}
	if err := writeStamp(stamp, key); err != nil {
		return Outcome{}, err
	}
	return r.missingNote("cells of"), nil
}

func (r *run) reportStage() (Outcome, error) {
	args := slices.Concat([]string{"report"}, r.plan.report, []string{"--stages", filepath.Join(r.out, StagesFile)})
	if r.HasTeX() {
		if err := r.eccco(append(args, "--pdf", r.pdf)...); err != nil {
			if r.keepPDF() {
				fmt.Fprintf(r.Stderr, "(kept %s: compiled earlier from the same content as this run's sources)\n", r.pdf)
			} else if r.removeStalePDF() {
				fmt.Fprintf(r.Stderr, "(removed %s, an earlier run's PDF: this run could not build one)\n", r.pdf)
			}
			return Outcome{}, err
		}
		return Outcome{}, nil
	}
	if err := r.eccco(append(args, "--pdf", "")...); err != nil {
		return Outcome{}, err
	}
	if r.keepPDF() {
		// A fresh clone's run whose results came back as committed: the committed PDF still shows them.
		fmt.Fprintf(r.Stdout, "(kept %s: compiled earlier from the same content as this run's sources in %s/, their build rows and stage timings aside)\n", r.pdf, r.reportOut)
		fmt.Fprintln(r.Stdout, "SKIP: a new PDF needs TeX, which is not installed here; install it (Debian/Ubuntu, as root) with")
		fmt.Fprintln(r.Stdout, "  apt-get install --no-install-recommends $(cat scripts/texlive-packages.txt)")
		return Outcome{Skipped, NoteKeptPDF}, nil
	}
	if r.removeStalePDF() {
		fmt.Fprintf(r.Stdout, "(removed %s, an earlier run's PDF that no longer matches the results)\n", r.pdf)
	}
	fmt.Fprintln(r.Stdout, "SKIP: the PDF needs TeX, which is not installed here; install it (Debian/Ubuntu, as root) with")
	fmt.Fprintln(r.Stdout, "  apt-get install --no-install-recommends $(cat scripts/texlive-packages.txt)")
	fmt.Fprintln(r.Stdout, "and run ./reproduce.sh again (the finished stages are skipped)")
	return Outcome{Skipped, NoteNoTeX}, nil
}

// texPath is the report's LaTeX source as the report stage writes it.
func (r *run) texPath() string { return filepath.Join(r.reportOut, "eccco-go.tex") }

// keepPDF reports whether the PDF at r.pdf was compiled from the content of the sources this run wrote
// (reportmark.SameContent: the same results, prose and figures; only the rows naming the build differ).
func (r *run) keepPDF() bool { return reportmark.SameContent(r.texPath(), r.pdf) }

// removeStalePDF removes the PDF at r.pdf when eccco report made it (a user's file is never removed) and
// reports whether it did.
func (r *run) removeStalePDF() bool {
	if ok, err := reportmark.GeneratedPDF(r.pdf); err != nil || !ok {
		return false
	}
	return os.Remove(r.pdf) == nil
}

func copyFile(from, to string) error {
	raw, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, raw, 0o644)
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if exec.Command("git", "diff", "--quiet", "HEAD").Run() != nil {
		c += " (with uncommitted changes)"
	}
	return c
}

// execTool runs an external tool with env added to this process's environment. On cancellation the
// tool gets SIGTERM (and is waited for: it records what it was doing), not SIGKILL.
func execTool(ctx context.Context, stdout, stderr io.Writer, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = append(os.Environ(), env...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// firstLine is an error's first line, as a note of stages.tsv can hold it.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.ReplaceAll(s, "\t", " ")
}

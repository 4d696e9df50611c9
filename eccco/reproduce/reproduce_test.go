package reproduce

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/eccco-go/eccco-go/eccco/internal/clock"
	"github.com/eccco-go/eccco-go/eccco/internal/reportmark"
)

// fake is a reproduction without the work: eccco's commands and the external tools are recorded and
// write the files the stages look for.
type fake struct {
	t        *testing.T
	calls    []string // "eccco perf …", "exec go test …"
	fail     string   // a command name (perf, bench, …) that fails
	onBench  func()   // run inside the bench command
	noNotebk bool     // notebooks/setup.sh fails
	// content is what the report shows (its content key is reportmark.Key of it): "" for "v1".
	content string
}

func (f *fake) run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f.calls = append(f.calls, "eccco "+strings.Join(args, " "))
	if args[0] == f.fail {
		return errors.New(args[0] + ": it broke\nsecond line")
	}
	out := flagValue(args, "--out")
	switch args[0] {
	case "bench":
		if f.onBench != nil {
			f.onBench()
		}
		must(f.t, os.MkdirAll(filepath.Join(out, "tables"), 0o755))
		must(f.t, os.WriteFile(filepath.Join(out, "results.csv"), []byte("r\n"), 0o644))
		if ctx.Err() != nil {
			return ctx.Err()
		}
	case "perf":
		must(f.t, os.MkdirAll(out, 0o755))
		must(f.t, os.WriteFile(filepath.Join(out, "perf.md"), []byte("p\n"), 0o644))
	case "figures":
		must(f.t, os.MkdirAll(out, 0o755))
		must(f.t, os.WriteFile(filepath.Join(out, "poc-gen.png"), []byte("png"), 0o644))
	case "report":
		content := cmp.Or(f.content, "v1")
		key := reportmark.Key([]byte(content))
		must(f.t, os.MkdirAll(out, 0o755))
		must(f.t, os.WriteFile(filepath.Join(out, "eccco-go.tex"), []byte("% "+reportmark.Marker+"\n"+reportmark.TeXLine(key)+"\n"+content), 0o644))
		if pdf := flagValue(args, "--pdf"); pdf != "" {
			must(f.t, os.MkdirAll(filepath.Dir(pdf), 0o755))
			must(f.t, os.WriteFile(pdf, []byte("%PDF- (generated\\040by\\040eccco\\040report) /Keywords("+reportmark.PDFKeywords(key)+")"), 0o644))
		}
	}
	return nil
}

func (f *fake) exec(_ context.Context, _, _ io.Writer, env []string, name string, args ...string) error {
	f.calls = append(f.calls, "exec "+strings.Join(append(env, append([]string{name}, args...)...), " "))
	if name == "notebooks/setup.sh" && f.noNotebk {
		return errors.New("no JupyterLab")
	}
	return nil
}

func (f *fake) ran(prefix string) bool {
	return slices.ContainsFunc(f.calls, func(c string) bool { return strings.HasPrefix(c, prefix) })
}

func flagValue(args []string, name string) string {
	for i := len(args) - 2; i >= 0; i-- {
		if args[i] == name {
			return args[i+1]
		}
	}
	return ""
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// scratch makes a folder that looks like a checkout and moves into it; its data folder holds none of
// the downloaded data sets (only the synthetic ones are present).
func scratch(t *testing.T) string {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("ECCCO_DATA_DIR", filepath.Join(dir, "data"))
	must(t, os.MkdirAll("notebooks", 0o755))
	must(t, os.WriteFile("notebooks/a.ipynb", []byte("{}"), 0o644))
	must(t, os.WriteFile("eccco.bin", []byte("binary"), 0o755))
	return dir
}

func (f *fake) config(tex bool) Config {
	return Config{Quick: true, Mode: "authors-code", Jobs: 2, Binary: "eccco.bin", Run: f.run, Exec: f.exec,
		HasTeX: func() bool { return tex }, Stdout: io.Discard, Stderr: io.Discard}
}

func stageOf(t *testing.T, s *Summary, name string) StageResult {
	t.Helper()
	for _, st := range s.Stages {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no stage %s in %+v", name, s.Stages)
	return StageResult{}
}

func readBack(t *testing.T) *Summary {
	t.Helper()
	s, err := ReadSummary("runs/quick/summary.json")
	must(t, err)
	return s
}

// TestQuickProfileCommands: the quick profile runs the commands, with the arguments, that the shell
// reproduce.sh ran.
func TestQuickProfileCommands(t *testing.T) {
	scratch(t)
	f := &fake{t: t}
	c := f.config(false)
	c.Mirror = "/mirror"
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"eccco backend",
		"eccco data fetch all --from /mirror",
		"eccco data list",
		"eccco perf --data linearly-separable,moons,circles --skip-missing --models mlp,mlp-ensemble,jem,jem-ensemble --jobs 2 --mode authors-code --set epochs=5 --models-dir runs/quick/models --out runs/quick/perf",
		"eccco bench --data linearly-separable,moons,circles --skip-missing --runs 2 --factuals 20 --jobs 2 --mode authors-code --set epochs=5 --models-dir runs/quick/models --out runs/quick/bench",
		"eccco figures --mode paper --set epochs=5,lenet-epochs=1 --models-dir runs/quick/models --results runs/quick/bench --out figures --records runs/quick/.figures.records",
		"exec notebooks/setup.sh",
		"exec ECCCO_NOTEBOOKS=1 go test ./notebooks -count=1 -run TestNotebooks -timeout 120m",
		"eccco report --quick --results runs/quick/bench --paper-mode  --replay-only  --second-seed  --perf runs/quick/perf/perf.csv --figures figures --out runs/quick/report --markdown runs/quick/report/eccco-go.md --stages runs/quick/stages.tsv --pdf ",
	}
	if len(f.calls) != len(want) {
		t.Fatalf("ran %d commands, want %d:\n%s", len(f.calls), len(want), strings.Join(f.calls, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(f.calls[i], w) {
			t.Errorf("command %d:\n got %s\nwant %s", i, f.calls[i], w)
		}
	}
}

// TestFaults is the reproduce-level part of scripts/faults.sh (issue 39 and after), each case a run (or
// runs) of the stages with the commands faked.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(t *testing.T)
	}{
		// reproduce-lock: a second run in the same output folder stops at once, naming the first.
		{"lock", func(t *testing.T) {
			scratch(t)
			must(t, os.MkdirAll("runs/quick", 0o755))
			must(t, os.WriteFile("runs/quick/"+LockFile, []byte("4242\n"), 0o644))
			held, err := os.Open("runs/quick/" + LockFile)
			must(t, err)
			defer held.Close()
			must(t, syscall.Flock(int(held.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
			f := &fake{t: t}
			_, err = Run(context.Background(), f.config(false))
			if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "(process 4242)") || !strings.Contains(err.Error(), "runs/quick") {
				t.Fatalf("err = %v, want ErrLocked naming process 4242 and runs/quick", err)
			}
			if len(f.calls) > 0 {
				t.Errorf("ran %v while locked out", f.calls)
			}
		}},
		// reproduce-without-mnist: data sets not available are skipped, the stages end ok and say which.
		{"without-data-sets", func(t *testing.T) {
			scratch(t)
			f := &fake{t: t}
			s, err := Run(context.Background(), f.config(false))
			must(t, err)
			if s.Status != OK || !s.Finished {
				t.Errorf("run: status %s, finished %v; want ok, finished", s.Status, s.Finished)
			}
			for _, name := range []string{"data", "figures", "notebooks"} {
				st := stageOf(t, s, name)
				if st.Status != OK || !strings.Contains(st.Note, "mnist") || !strings.Contains(st.Note, "not available") {
					t.Errorf("%s: %s, want ok with a note naming mnist", name, st.Outcome())
				}
			}
			if got := readBack(t); got.Status != OK || stageOf(t, got, "data").Status != OK {
				t.Errorf("summary.json: %+v", got)
			}
		}},
		// reproduce-after-fetching, reproduce-rerun-finished: a finished run run again redoes nothing
		// (figures and notebooks up to date); a data set fetched since makes them stale.
		{"rerun-then-fetch", func(t *testing.T) {
			dir := scratch(t)
			f := &fake{t: t}
			_, err := Run(context.Background(), f.config(false))
			must(t, err)
			f.calls = nil
			s, err := Run(context.Background(), f.config(false))
			must(t, err)
			for _, name := range []string{"figures", "notebooks"} {
				if o := stageOf(t, s, name).Outcome(); o != (Outcome{Skipped, NoteUpToDate}) {
					t.Errorf("rerun: %s %s, want skipped (up to date)", name, o)
				}
			}
			if f.ran("eccco figures") || f.ran("exec notebooks/setup.sh") {
				t.Errorf("rerun redid finished work: %v", f.calls)
			}
			if s.Status != OK {
				t.Errorf("rerun: run status %s, want ok", s.Status)
			}
			// German Credit fetched (its CSV in the data folder) since: the figures' and notebooks' inputs changed.
			must(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "data", "german_credit.csv"), []byte("x"), 0o644))
			f.calls = nil
			s, err = Run(context.Background(), f.config(false))
			must(t, err)
			if !f.ran("eccco figures") || !f.ran("exec notebooks/setup.sh") {
				t.Errorf("after fetching, figures and notebooks were not redone: %v", f.calls)
			}
			if st := stageOf(t, s, "figures"); st.Status != OK || strings.Contains(st.Note, "german-credit") {
				t.Errorf("after fetching: figures %s", st.Outcome())
			}
		}},
		// reproduce-stale-pdf: a run without TeX keeps the PDF an earlier run compiled from the same
		// content (a fresh clone's committed PDF), removes one of other content, and never a user's file.
		{"stale-pdf", func(t *testing.T) {
			scratch(t)
			const pdf = "runs/quick/report/eccco-go.pdf"
			f := &fake{t: t}
			_, err := Run(context.Background(), f.config(true))
			must(t, err)
			built, err := os.ReadFile(pdf)
			if err != nil {
				t.Fatal("with TeX: no PDF")
			}
			// The same content, no TeX: the PDF stays, and the summary says it was kept.
			s, err := Run(context.Background(), f.config(false))
			must(t, err)
			if raw, _ := os.ReadFile(pdf); !bytes.Equal(raw, built) {
				t.Error("a run without TeX of the same content did not keep the PDF as it was")
			}
			if o := stageOf(t, s, "report").Outcome(); o != (Outcome{Skipped, NoteKeptPDF}) {
				t.Errorf("same content, no TeX: report %s, want skipped (%s)", o, NoteKeptPDF)
			}
			if s.Status != OK || s.PDF != pdf || !s.PDFKept {
				t.Errorf("same content, no TeX: run status %s, PDF %q kept %v; want ok, %s kept", s.Status, s.PDF, s.PDFKept, pdf)
			}
			// Other content, no TeX: the earlier PDF no longer shows it and is removed.
			f.content = "v2"
			s, err = Run(context.Background(), f.config(false))
			must(t, err)
			if _, err := os.Stat(pdf); err == nil {
				t.Error("the earlier run's PDF of other content survived a run without TeX")
			}
			if o := stageOf(t, s, "report").Outcome(); o != (Outcome{Skipped, NoteNoTeX}) {
				t.Errorf("other content, no TeX: report %s, want skipped (%s)", o, NoteNoTeX)
			}
			if s.Status != OK || s.PDF != "" || s.PDFKept {
				t.Errorf("other content, no TeX: run status %s, PDF %q kept %v; want ok, none", s.Status, s.PDF, s.PDFKept)
			}
			must(t, os.WriteFile(pdf, []byte("%PDF- the user's"), 0o644))
			_, err = Run(context.Background(), f.config(false))
			must(t, err)
			if raw, _ := os.ReadFile(pdf); string(raw) != "%PDF- the user's" {
				t.Error("a PDF eccco did not make was removed")
			}
		}},
		// No JupyterLab: the notebooks are skipped with a note, the run still ends ok.
		{"no-jupyterlab", func(t *testing.T) {
			scratch(t)
			f := &fake{t: t, noNotebk: true}
			s, err := Run(context.Background(), f.config(false))
			must(t, err)
			if o := stageOf(t, s, "notebooks").Outcome(); o != (Outcome{Skipped, "no JupyterLab"}) {
				t.Errorf("notebooks: %s", o)
			}
			if f.ran("exec ECCCO_NOTEBOOKS=1 go test") {
				t.Error("ran the notebooks without their tool chain")
			}
		}},
		// A failed stage stops the run: its status failed with the error's first line, the later stages
		// not run, the run's status failed, and the next invocation resumes it.
		{"failed-stage", func(t *testing.T) {
			scratch(t)
			f := &fake{t: t, fail: "perf"}
			s, err := Run(context.Background(), f.config(false))
			var se *StageError
			if !errors.As(err, &se) || se.Stage != "perf" {
				t.Fatalf("err = %v, want the perf stage's", err)
			}
			if o := stageOf(t, s, "perf").Outcome(); o != (Outcome{Failed, "perf: it broke"}) {
				t.Errorf("perf: %s", o)
			}
			if f.ran("eccco bench") || len(s.Stages) != 2 {
				t.Errorf("stages after the failed one ran: %v", f.calls)
			}
			if got := readBack(t); got.Status != Failed || got.Finished {
				t.Errorf("summary.json: status %s, finished %v", got.Status, got.Finished)
			}
			if _, err := os.Stat("runs/quick/.stages.unfinished"); err != nil {
				t.Error("a failed run is not marked unfinished")
			}
		}},
		// Ctrl-C (kill, a closed terminal) in a stage: its time so far is recorded as interrupted, the exit
		// status is the shell's for the signal, and the next invocation adds its times to the recorded ones.
		{"interrupt-and-resume", func(t *testing.T) {
			scratch(t)
			var now time.Time
			defer clock.Set(func() time.Time { now = now.Add(750 * time.Millisecond); return now })()
			f := &fake{t: t, onBench: func() {
				syscall.Kill(os.Getpid(), syscall.SIGINT)
				time.Sleep(200 * time.Millisecond) // the signal is delivered
			}}
			_, err := Run(context.Background(), f.config(false))
			var ie *InterruptedError
			if !errors.As(err, &ie) || ie.Code() != 130 || ie.Stage != "bench" {
				t.Fatalf("err = %v, want interrupted in bench with exit status 130", err)
			}
			tsv, _ := os.ReadFile("runs/quick/stages.tsv")
			if !strings.Contains(string(tsv), "bench\t0.8\tfailed (interrupted)\t") {
				t.Errorf("stages.tsv:\n%s", tsv)
			}
			f.onBench = nil
			s, err := Run(context.Background(), f.config(false))
			must(t, err)
			if st := stageOf(t, s, "bench"); st.Status != OK || st.WallSeconds != 1.6 {
				t.Errorf("resumed bench: %s %.1f s, want ok 1.6 s (0.8 s of each invocation)", st.Outcome(), st.WallSeconds)
			}
			if st := stageOf(t, s, "data"); st.WallSeconds != 1.6 {
				t.Errorf("resumed data: %.1f s, want 1.6", st.WallSeconds)
			}
			if _, err := os.Stat("runs/quick/.stages.unfinished"); err == nil {
				t.Error("a finished run is still marked unfinished")
			}
		}},
		// kill (SIGTERM) under the command line's own handler, which cancels the run's context first:
		// still recorded as interrupted, with the shell's exit status for SIGTERM.
		{"terminate", func(t *testing.T) {
			scratch(t)
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			f := &fake{t: t, onBench: func() {
				syscall.Kill(os.Getpid(), syscall.SIGTERM)
				<-ctx.Done()
			}}
			s, err := Run(ctx, f.config(false))
			var ie *InterruptedError
			if !errors.As(err, &ie) || ie.Code() != 143 {
				t.Fatalf("err = %v, want interrupted with exit status 143", err)
			}
			if o := stageOf(t, s, "bench").Outcome(); o != (Outcome{Failed, NoteInterrupted}) || s.Status != Failed {
				t.Errorf("bench %s, run %s", o, s.Status)
			}
		}},
		// A run begun by the shell reproduce.sh (its stages.tsv and spellings) resumes under eccco reproduce.
		{"resume-shell-run", func(t *testing.T) {
			scratch(t)
			must(t, os.MkdirAll("runs/quick", 0o755))
			must(t, os.WriteFile("runs/quick/stages.tsv", []byte("stage\tseconds\tstatus\tcpu_seconds\n"+
				"data\t1.0\tok (data sets mnist skipped: not available)\t0.5\nperf\t2.0\tinterrupted\t1.0\n"), 0o644))
			must(t, os.WriteFile("runs/quick/.stages.unfinished", nil, 0o644))
			var out bytes.Buffer
			f := &fake{t: t}
			c := f.config(false)
			c.Stdout = &out
			defer clock.Set(func() time.Time { return time.Time{} })()
			s, err := Run(context.Background(), c)
			must(t, err)
			if !strings.Contains(out.String(), "resuming an unfinished run") {
				t.Error("no word of resuming")
			}
			if st := stageOf(t, s, "perf"); st.WallSeconds != 2.0 || st.CPUSeconds != 1.0 || st.Status != OK {
				t.Errorf("perf: %+v, want ok with the 2.0 s and 1.0 CPU s recorded", st)
			}
		}},
	} {
		t.Run(tc.name, tc.check)
	}
}

func TestParseOutcome(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Outcome
		bad  bool
	}{
		{in: "ok", want: Outcome{OK, ""}},
		{in: "ok (data sets mnist, fashion-mnist skipped: not available)", want: Outcome{OK, "data sets mnist, fashion-mnist skipped: not available"}},
		{in: "skipped (up to date)", want: Outcome{Skipped, NoteUpToDate}},
		{in: "SKIP (no TeX: sources only)", want: Outcome{Skipped, "no TeX: sources only"}},
		{in: "failed (exit 1)", want: Outcome{Failed, "exit 1"}},
		{in: "failed (bench: a (nested) cause)", want: Outcome{Failed, "bench: a (nested) cause"}},
		{in: "interrupted", want: Outcome{Failed, NoteInterrupted}},
		{in: "fine", bad: true},
		{in: "ok (unclosed", bad: true},
		{in: "", bad: true},
	} {
		got, err := ParseOutcome(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseOutcome(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseOutcome(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if back, err := ParseOutcome(got.String()); err != nil || back != got {
			t.Errorf("%q does not read back: %v, %v", got.String(), back, err)
		}
	}
}

// TestFullProfilePlan: the full profile's folders and the backends passed on.
func TestFullProfilePlan(t *testing.T) {
	p := newPlan(Config{Mode: "authors-code", Jobs: 1, ImageBackend: "xla:cpu", TabularBackend: "xla:cpu"})
	if p.out != "runs" || !p.publish || p.pdf != "paper/eccco-go.pdf" || p.benchOut != "runs/bench" {
		t.Errorf("authors-code: %+v", p)
	}
	if !slices.Contains(p.bench, "--tabular-backend") || !slices.Contains(p.perf, "--image-backend") || slices.Contains(p.perf, "--tabular-backend") {
		t.Errorf("backends: perf %v, bench %v", p.perf, p.bench)
	}
	p = newPlan(Config{Mode: "paper", Jobs: 1})
	if p.out != "runs/paper-mode" || p.publish || p.pdf != "runs/paper-mode/report/eccco-go.pdf" {
		t.Errorf("paper mode: %+v", p)
	}
	if Out(true, "paper") != "runs/quick-paper-mode" {
		t.Error("quick paper-mode folder")
	}
}

// The summary's columns line up whatever a stage's note: the status column is as wide as the longest
// outcome, the report stage's kept-PDF note (62 characters) included.
func TestSummaryColumnsLineUp(t *testing.T) {
	var out strings.Builder
	r := &run{Config: Config{Stdout: &out}, stages: []StageResult{
		{Name: "data", Status: OK, WallSeconds: 1, CPUSeconds: 1, Outputs: []string{"data/cache"}},
		{Name: "report", Status: Skipped, Note: NoteKeptPDF, WallSeconds: 2.5, CPUSeconds: 2, Outputs: []string{"paper/report"}},
		{Name: "notebooks", Status: Skipped, Note: NoteUpToDate, WallSeconds: 0, CPUSeconds: 0},
	}}
	r.printSummary()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")[1:] // the header row, then one per stage
	if len(lines) != 4 {
		t.Fatalf("%d lines after the title, want 4:\n%s", len(lines), out.String())
	}
	end := strings.Index(lines[0], "time") + len("time") // the wall time is right-aligned on its header
	wall := regexp.MustCompile(`^ *[0-9]+\.[0-9]s$`)
	for _, l := range lines[1:] {
		if r := []rune(l); len(r) < end || !wall.MatchString(string(r[end-10:end])) {
			t.Errorf("the time column is not under its header:\n%s\n%s", lines[0], l)
		}
	}
}

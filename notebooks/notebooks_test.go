package notebooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	nbhelp "github.com/eccco-go/eccco-go/eccco/notebook"
)

// The harness. TestNotebookFiles (always) checks the committed notebooks' form; TestNotebooks (only with
// ECCCO_NOTEBOOKS set) executes them with the gonb kernel through nbconvert/nbclient and checks their
// outputs. README.md in this folder documents both and the "eccco" metadata.

// notebook is the part of the .ipynb format the harness reads.
type notebook struct {
	Cells    []cell         `json:"cells"`
	Metadata map[string]any `json:"metadata"`
	NBFormat int            `json:"nbformat"`
}

type cell struct {
	CellType string         `json:"cell_type"`
	Source   any            `json:"source"` // a string or a list of strings
	Metadata map[string]any `json:"metadata"`
	Outputs  []output       `json:"outputs"`
}

type output struct {
	OutputType string         `json:"output_type"`
	Name       string         `json:"name"`
	Text       any            `json:"text"`
	Data       map[string]any `json:"data"`
	EName      string         `json:"ename"`
	EValue     string         `json:"evalue"`
	Traceback  []string       `json:"traceback"`
}

// joined returns a notebook string field (a string or a list of strings) as one string.
func joined(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, s := range v {
			if s, ok := s.(string); ok {
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// expectations returns the "expect" list of an "eccco" metadata object, or an error when it is malformed.
func expectations(meta map[string]any) ([]string, error) {
	e, ok := meta["eccco"]
	if !ok {
		return nil, nil
	}
	m, ok := e.(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`metadata "eccco" is not an object`)
	}
	raw, ok := m["expect"]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf(`metadata "eccco.expect" is not a list`)
	}
	var out []string
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf(`metadata "eccco.expect" has a non-string entry %v`, x)
		}
		if err := validKind(s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// validKind accepts the expectation kinds the README documents: a MIME type ("image/png"), "image",
// "table", "text:SUBSTRING".
func validKind(k string) error {
	switch {
	case k == "image", k == "table":
		return nil
	case strings.HasPrefix(k, "text:") && len(k) > len("text:"):
		return nil
	case regexp.MustCompile(`^[a-z]+/[A-Za-z0-9.+-]+$`).MatchString(k):
		return nil
	}
	return fmt.Errorf(`unknown expectation %q: use a MIME type ("image/png"), "image", "table" or "text:SUBSTRING"`, k)
}

var (
	mdTableRule = regexp.MustCompile(`(?m)^\s*\|?(\s*:?-+:?\s*\|)+\s*(:?-+:?\s*)?$`) // a Markdown table's delimiter row
	displayCall = regexp.MustCompile(`(?m)^[^/\n]*\bgonbui\.(Display|Update)[A-Za-z]*\(`)
	stdoutCall  = regexp.MustCompile(`(?m)^[^/\n]*\b(fmt\.Print[a-z]*\(|os\.Std(out|err)\b|print(ln)?\()`)
	ansi        = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)
	gonbErrLine = regexp.MustCompile(`<span class="gonb-cell-line-info">([^<]*)</span>\s*<span class="gonb-err-location">([^<]*)</span></span>([^<]*)`)
)

// shows reports whether outputs satisfy one expectation kind.
func shows(outs []output, kind string) bool {
	for _, o := range outs {
		html := joined(o.Data["text/html"])
		md := joined(o.Data["text/markdown"])
		switch {
		case kind == "image":
			for _, m := range []string{"image/png", "image/jpeg", "image/gif", "image/svg+xml"} {
				if _, ok := o.Data[m]; ok {
					return true
				}
			}
			if strings.Contains(html, "<img") || strings.Contains(html, "<svg") {
				return true
			}
		case kind == "table":
			if mdTableRule.MatchString(md) || strings.Contains(html, "<table") {
				return true
			}
		case strings.HasPrefix(kind, "text:"):
			want := strings.TrimPrefix(kind, "text:")
			texts := []string{joined(o.Text), md, html, joined(o.Data["text/plain"])}
			for _, t := range texts {
				if strings.Contains(t, want) {
					return true
				}
			}
		default:
			if _, ok := o.Data[kind]; ok {
				return true
			}
		}
	}
	return false
}

// skippedMarker is notebook.SkippedMarker: the note of a cell that skipped because its data set is missing.
const skippedMarker = "<!-- eccco:skipped -->"

// checkOutputs returns one message per problem of an executed notebook: error outputs, "panic:" on
// stderr, a cell that calls gonbui.Display…/Update… but shows nothing, and unmet expectations. A cell
// that skipped for a missing data set (its output carries skippedMarker) is not asked for its expected
// outputs, nor, then, the notebook for its own.
func checkOutputs(nb *notebook) []string {
	var problems []string
	var all []output
	n, skipped := 0, 0
	for _, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		n++
		where := fmt.Sprintf("code cell %d", n)
		src := joined(c.Source)
		if first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(src), "\n", 2)[0]); first != "" {
			where += fmt.Sprintf(" (%.60s)", first)
		}
		displayed := false
		var stderr strings.Builder
		for _, o := range c.Outputs {
			if o.OutputType == "stream" && o.Name == "stderr" {
				stderr.WriteString(joined(o.Text))
			}
			// GoNB v0.11.5 reports compiler errors as an HTML display (even with --raw_error): keep their lines.
			if html := joined(o.Data["text/html"]); strings.Contains(html, "gonb-err-location") {
				for _, m := range gonbErrLine.FindAllStringSubmatch(html, -1) {
					stderr.WriteString(m[1] + " " + m[2] + m[3] + "\n")
				}
			}
		}
		errText := ansi.ReplaceAllString(stderr.String(), "")
		if len(errText) > 3000 {
			errText = "…" + errText[len(errText)-3000:]
		}
		if strings.Contains(errText, "panic:") {
			problems = append(problems, fmt.Sprintf("%s: panic on stderr:\n%s", where, errText))
			errText = ""
		}
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "error":
				tb := ansi.ReplaceAllString(strings.Join(o.Traceback, "\n"), "")
				if tb == o.EValue || strings.TrimSpace(tb) == "" {
					tb = ""
				}
				problems = append(problems, strings.TrimRight(fmt.Sprintf("%s: error output %s: %s\n%s\n%s", where, o.EName, o.EValue, tb, errText), "\n"))
			case "display_data", "execute_result", "update_display_data":
				if len(o.Data) > 0 {
					displayed = true
				}
			}
		}
		if displayCall.MatchString(src) && !displayed {
			problems = append(problems, fmt.Sprintf("%s: calls gonbui.Display… but produced no display output", where))
		}
		kinds, err := expectations(c.Metadata)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
		}
		if shows(c.Outputs, "text:"+skippedMarker) {
			skipped++
			kinds = nil // a cell that skipped for a missing data set (notebook.Open) shows only its note
		}
		for _, k := range kinds {
			if !shows(c.Outputs, k) {
				problems = append(problems, fmt.Sprintf("%s: expected %q in its outputs, found none", where, k))
			}
		}
		all = append(all, c.Outputs...)
	}
	kinds, err := expectations(nb.Metadata)
	if err != nil {
		problems = append(problems, "notebook: "+err.Error())
	}
	for _, k := range kinds {
		if !shows(all, k) && skipped == 0 {
			problems = append(problems, fmt.Sprintf("notebook: expected %q among its outputs, found none", k))
		}
	}
	return problems
}

func readNotebook(path string) (*notebook, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	nb := new(notebook)
	if err := json.Unmarshal(b, nb); err != nil {
		return nil, fmt.Errorf("%s: not a notebook: %w", path, err)
	}
	return nb, nil
}

func notebookFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no notebooks/*.ipynb")
	}
	return files
}

// maxNotebookBytes bounds a committed notebook: outputs belong in the executed copies, not in git.
const maxNotebookBytes = 256 << 10

// TestNotebookFiles checks every committed notebook's form; it needs nothing but Go.
func TestNotebookFiles(t *testing.T) {
	for _, path := range notebookFiles(t) {
		t.Run(strings.TrimSuffix(path, ".ipynb"), func(t *testing.T) {
			if fi, err := os.Stat(path); err != nil {
				t.Fatal(err)
			} else if fi.Size() > maxNotebookBytes {
				t.Errorf("%s is %d bytes (limit %d): clear its outputs (jupyter nbconvert --clear-output --inplace %s)", path, fi.Size(), maxNotebookBytes, path)
			}
			nb, err := readNotebook(path)
			if err != nil {
				t.Fatal(err)
			}
			if nb.NBFormat != 4 {
				t.Errorf("nbformat %d, want 4", nb.NBFormat)
			}
			if ks, _ := nb.Metadata["kernelspec"].(map[string]any); ks == nil || ks["name"] != "gonb" {
				t.Errorf(`metadata.kernelspec.name is not "gonb"`)
			}
			if _, err := expectations(nb.Metadata); err != nil {
				t.Error(err)
			}
			first := true
			for i, c := range nb.Cells {
				if c.CellType != "code" {
					continue
				}
				src := joined(c.Source)
				if first {
					first = false
					if !strings.Contains(src, "%noautoget") || !strings.Contains(src, "workspace.sh") {
						t.Errorf("the first code cell must be the set-up cell (%%noautoget and workspace.sh; see README.md), got:\n%s", src)
					}
				}
				if _, err := expectations(c.Metadata); err != nil {
					t.Errorf("cell %d: %v", i, err)
				}
				if m := stdoutCall.FindString(src); m != "" {
					t.Errorf("cell %d writes to standard output or error (%s): use notebook.Printf, which keeps the cell's outputs in order (README.md)", i, strings.TrimSpace(m))
				}
				if displayCall.MatchString(src) && !strings.Contains(src, "gonbui.Sync()") {
					t.Errorf("cell %d calls gonbui.Display… without `defer gonbui.Sync()` (displays get lost without it)", i)
				}
				for _, o := range c.Outputs {
					if o.OutputType == "error" {
						t.Errorf("cell %d: committed with an error output; clear the outputs", i)
					}
				}
			}
			if first {
				t.Errorf("no code cell")
			}
		})
	}
}

// TestCheckOutputs exercises the checks on hand-made outputs.
func TestCheckOutputs(t *testing.T) {
	img := output{OutputType: "display_data", Data: map[string]any{"image/png": "iVBOR"}}
	table := output{OutputType: "display_data", Data: map[string]any{"text/markdown": []any{"| a | b |\n", "|---|--:|\n", "| 1 | 2 |\n"}}}
	good := &notebook{
		Metadata: map[string]any{"eccco": map[string]any{"expect": []any{"image/png", "image", "table", "text:hello"}}},
		Cells: []cell{
			{CellType: "code", Source: "%noautoget"},
			{CellType: "code", Source: "%%\ndefer gonbui.Sync()\ngonbui.DisplayPng(b)\n", Outputs: []output{img}},
			{CellType: "code", Source: []any{"gonbui.DisplayMarkdown(t)"}, Outputs: []output{table, {OutputType: "stream", Name: "stdout", Text: "hello\n"}}},
		},
	}
	if p := checkOutputs(good); len(p) != 0 {
		t.Errorf("good notebook: %q", p)
	}
	bad := &notebook{
		Metadata: map[string]any{"eccco": map[string]any{"expect": []any{"table"}}},
		Cells: []cell{
			{CellType: "code", Source: "gonbui.DisplayPng(b)", Metadata: map[string]any{"eccco": map[string]any{"expect": []any{"image"}}}},
			{CellType: "code", Source: "x", Outputs: []output{{OutputType: "error", EName: "ERROR", EValue: "boom"}}},
			{CellType: "code", Source: "y", Outputs: []output{{OutputType: "stream", Name: "stderr", Text: "panic: oops\n"}}},
			{CellType: "code", Source: "// gonbui.DisplayPng(b) in a comment is not a call"},
		},
	}
	p := checkOutputs(bad)
	want := []string{"no display output", `expected "image"`, "error output ERROR: boom", "panic on stderr", `notebook: expected "table"`}
	if len(p) != len(want) {
		t.Errorf("bad notebook: got %d problems, want %d: %q", len(p), len(want), p)
	}
	for _, w := range want {
		found := false
		for _, s := range p {
			found = found || strings.Contains(s, w)
		}
		if !found {
			t.Errorf("bad notebook: no problem mentions %q in %q", w, p)
		}
	}
	skippedNB := &notebook{
		Metadata: map[string]any{"eccco": map[string]any{"expect": []any{"image/png"}}},
		Cells: []cell{{CellType: "code", Source: "%%\ndefer gonbui.Sync()\ngonbui.DisplayPng(b)", Metadata: map[string]any{"eccco": map[string]any{"expect": []any{"image"}}},
			Outputs: []output{{OutputType: "display_data", Data: map[string]any{"text/markdown": nbhelp.Missing("mnist")}}}}},
	}
	if p := checkOutputs(skippedNB); len(p) != 0 {
		t.Errorf("a cell skipped for a missing data set: %q", p)
	}
	for _, k := range []string{"imag", "text:", "png"} {
		if validKind(k) == nil {
			t.Errorf("validKind(%q) accepted", k)
		}
	}
}

// findJupyter returns a jupyter command that has nbconvert: $ECCCO_JUPYTER, then the venv of
// notebooks/setup.sh, then PATH.
func findJupyter(root string) (string, error) {
	var candidates []string
	if j := os.Getenv("ECCCO_JUPYTER"); j != "" {
		candidates = append(candidates, j)
	}
	home := os.Getenv("ECCCO_NOTEBOOKS_HOME")
	if home == "" {
		home = filepath.Join(root, ".notebooks")
	}
	candidates = append(candidates, filepath.Join(home, "venv", "bin", "jupyter"))
	if j, err := exec.LookPath("jupyter"); err == nil {
		candidates = append(candidates, j)
	}
	for _, j := range candidates {
		if err := exec.Command(j, "nbconvert", "--version").Run(); err == nil {
			return j, nil
		}
	}
	return "", fmt.Errorf("no jupyter with nbconvert (tried %s): run notebooks/setup.sh, or set ECCCO_JUPYTER", strings.Join(candidates, ", "))
}

// TestNotebooks executes every notebooks/*.ipynb (or those whose names contain one of the comma-separated
// words of ECCCO_NOTEBOOKS, when it is not 1) with the gonb kernel and checks the outputs. It builds gonb
// and goimports from this module's tool directives into a temporary folder and installs the kernel into a
// temporary JUPYTER_DATA_DIR (with --raw_error, so compiler errors come back as text). Executed copies go
// to runs/notebooks/executed/, HTML copies to runs/notebooks/html/, the kernel's log of a
// notebook that fails to runs/notebooks/logs/ (ECCCO_NOTEBOOKS_OUT moves runs/notebooks). ECCCO_QUICK defaults to 1 here.
func TestNotebooks(t *testing.T) {
	sel := os.Getenv("ECCCO_NOTEBOOKS")
	if sel == "" || sel == "0" {
		t.Skip("set ECCCO_NOTEBOOKS=1 to execute the notebooks (needs notebooks/setup.sh; see notebooks/README.md)")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	jupyter, err := findJupyter(root)
	if err != nil {
		t.Fatal(err) // asked for, so a missing tool chain fails
	}
	out := os.Getenv("ECCCO_NOTEBOOKS_OUT")
	if out == "" {
		out = filepath.Join(root, "runs", "notebooks")
	}
	if out, err = filepath.Abs(out); err != nil {
		t.Fatal(err)
	}
	cellTimeout := 1800
	if s := os.Getenv("ECCCO_NOTEBOOKS_CELL_TIMEOUT"); s != "" {
		if cellTimeout, err = strconv.Atoi(s); err != nil {
			t.Fatalf("ECCCO_NOTEBOOKS_CELL_TIMEOUT=%q: %v", s, err)
		}
	}

	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-30*time.Second))
		defer cancel()
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	jdata := filepath.Join(tmp, "jupyter-data")
	env := append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"JUPYTER_DATA_DIR="+jdata,
		"JUPYTER_CONFIG_DIR="+filepath.Join(tmp, "jupyter-config"),
		"JUPYTER_RUNTIME_DIR="+filepath.Join(tmp, "jupyter-runtime"),
		"JUPYTER_PLATFORM_DIRS=1",
		"ECCCO_NOTEBOOKS_HEADLESS=1", // notebook.Knob: no front end, show the starting value at once
	)
	if os.Getenv("ECCCO_QUICK") == "" {
		env = append(env, "ECCCO_QUICK=1")
	}
	run := func(name string, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = root
		cmd.Env = env
		return cmd.CombinedOutput()
	}

	start := time.Now()
	if b, err := run("go", "build", "-o", bin+string(os.PathSeparator), "github.com/janpfeifer/gonb", "golang.org/x/tools/cmd/goimports"); err != nil {
		t.Fatalf("building gonb and goimports from go.mod's tool directives: %v\n%s", err, b)
	}
	if b, err := run(filepath.Join(bin, "gonb"), "--install", "--force_deps", "--raw_error", "--logtostderr"); err != nil {
		t.Fatalf("installing the gonb kernel into %s: %v\n%s", jdata, err, b)
	}
	t.Logf("gonb, goimports and the kernel ready in %v; jupyter: %s; outputs under %s", time.Since(start).Round(time.Millisecond), jupyter, out)

	htmlArgs := []string{"nbconvert", "--to", "html"}
	if url, err := offlineMathJax(ctx, jupyter, filepath.Join(out, "html")); err == nil {
		htmlArgs = append(htmlArgs, "--HTMLExporter.mathjax_url="+url)
	} else if os.Getenv("ECCCO_JUPYTER") == "" && strings.HasPrefix(jupyter, root) {
		t.Fatal(err) // the venv of setup.sh must have it
	} else {
		t.Logf("the HTML copies load MathJax from the network: %v", err)
	}

	words := []string{}
	if sel != "1" {
		words = strings.Split(sel, ",")
	}
	ran := 0
	for _, path := range notebookFiles(t) {
		name := strings.TrimSuffix(path, ".ipynb")
		if len(words) > 0 && !containsAny(name, words) {
			continue
		}
		ran++
		t.Run(name, func(t *testing.T) {
			executed := filepath.Join(out, "executed")
			logs := filepath.Join(out, "logs")
			for _, d := range []string{executed, logs, filepath.Join(out, "html")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			args := []string{"nbconvert", "--to", "notebook", "--execute", "--allow-errors",
				"--ExecutePreprocessor.kernel_name=gonb",
				fmt.Sprintf("--ExecutePreprocessor.timeout=%d", cellTimeout),
				"--output-dir", executed, "--output", name, filepath.Join(root, "notebooks", path)}
			if os.Getenv("ECCCO_TEST_CLOCK") == "frozen" { // go doc ./eccco/internal/clock
				// Under the frozen test clock the executed copies carry no execution times either, so
				// that two runs can be compared byte for byte.
				args = append(args, "--ExecutePreprocessor.record_timing=False")
			}
			b, err := run(jupyter, args...)
			// The kernel's log (GoNB's debug lines carry the time, the process id and temporary paths) is
			// kept only for a notebook that fails: a passing notebook leaves no log, so two runs of the
			// same notebooks leave the same files.
			logPath := filepath.Join(logs, name+".log")
			_ = os.WriteFile(logPath, b, 0o644)
			defer func() {
				if !t.Failed() {
					_ = os.Remove(logPath)
				}
			}()
			if err != nil {
				t.Fatalf("executing %s: %v (kernel log: %s)\n%s", path, err, logPath, tail(b, 4000))
			}
			elapsed := time.Since(start)
			executedPath := filepath.Join(executed, path)
			if hb, err := run(jupyter, append(htmlArgs, "--output-dir", filepath.Join(out, "html"), executedPath)...); err != nil {
				t.Errorf("HTML copy of %s: %v\n%s", executedPath, err, tail(hb, 2000))
			}
			nb, err := readNotebook(executedPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range checkOutputs(nb) {
				t.Error(p)
			}
			t.Logf("%s executed in %v: %s, html/%s.html", path, elapsed.Round(time.Millisecond), executedPath, name)
		})
	}
	if ran == 0 {
		t.Fatalf("ECCCO_NOTEBOOKS=%q selects no notebook", sel)
	}
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if w = strings.TrimSpace(w); w != "" && strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return append([]byte("…"), b[len(b)-n:]...)
	}
	return bytes.TrimSpace(b)
}

// mathjaxConfig is the configuration of MathJax 2.7 that jupyter-server-mathjax ships (nbconvert's default,
// TeX-AMS_CHTML-full, is not in it).
const mathjaxConfig = "TeX-AMS-MML_HTMLorMML-full,Safe"

// offlineMathJax copies MathJax from the Python environment of jupyter (the package jupyter-server-mathjax,
// pinned in requirements.txt) into htmlDir/mathjax, once, and returns the relative URL the HTML copies
// load it from: they render their equations without the network, and the folder can be moved as a whole.
// Without the package it returns an error: TestNotebooks fails for the venv of setup.sh, and elsewhere
// (ECCCO_JUPYTER, a jupyter on PATH) keeps nbconvert's default, MathJax from a CDN, and logs why.
func offlineMathJax(ctx context.Context, jupyter, htmlDir string) (string, error) {
	url := "mathjax/MathJax.js?config=" + mathjaxConfig
	dest := filepath.Join(htmlDir, "mathjax")
	if _, err := os.Stat(filepath.Join(dest, "MathJax.js")); err == nil {
		return url, nil
	}
	py := filepath.Join(filepath.Dir(jupyter), "python")
	b, err := exec.CommandContext(ctx, py, "-c", "import jupyter_server_mathjax, os; print(os.path.join(os.path.dirname(jupyter_server_mathjax.__file__), 'static'))").Output()
	if err != nil {
		return "", fmt.Errorf("no MathJax in %s's environment (pip package jupyter-server-mathjax, pinned in notebooks/requirements.txt; run notebooks/setup.sh): %v", jupyter, err)
	}
	src := strings.TrimSpace(string(b))
	if err := copyTree(src, dest+".tmp"); err != nil {
		return "", fmt.Errorf("copying MathJax from %s: %w", src, err)
	}
	_ = os.RemoveAll(dest)
	if err := os.Rename(dest+".tmp", dest); err != nil {
		return "", err
	}
	return url, nil
}

// copyTree copies the regular files and folders under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}

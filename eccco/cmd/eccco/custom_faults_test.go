package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// exampleFiles returns the example's --model and --schema flags and --data for a CSV at data.
func exampleFiles(data string) []string {
	return []string{"--model", filepath.Join(exampleDir, "credit.onnx"), "--data", data, "--schema", filepath.Join(exampleDir, "schema.json")}
}

// pickCSV writes the header and the given data lines (1-based) of the example's CSV to dir/name.
func pickCSV(t *testing.T, dir, name string, lines ...int) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(exampleDir, "credit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.SplitAfter(string(raw), "\n")
	text := all[0]
	for _, l := range lines {
		text += all[l]
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExplainPCAFewRows: ECCCo+ searches in a PCA of the table; a table of 4 or 2 rows (fewer than the
// template's 8 components, or its 23 inputs) has at most rows − 1 principal directions. The search runs
// and writes one counterfactual per row asked for.
func TestExplainPCAFewRows(t *testing.T) {
	for _, lines := range [][]int{{1, 2, 23, 46}, {1, 23}} { // both classes: the metrics need rows of each
		n := len(lines)
		dir := t.TempDir()
		csv := pickCSV(t, dir, "few.csv", lines...)
		out := filepath.Join(dir, "cf.csv")
		if _, stderr, err := runCLI(t, append([]string{"explain-onnx", "--generator", "ECCCo+", "--rows", "0-1", "--out", out}, exampleFiles(csv)...)...); err != nil {
			t.Fatalf("%d rows: %v\n%s", n, err, stderr)
		}
		if got := readCSVFile(t, out); len(got) != 2 || got[0]["generator"] != "ECCCo+" {
			t.Errorf("%d rows: wrote %v", n, got)
		}
	}
}

// onLine is a stderr that calls do once, the first time a line containing trigger is written.
type onLine struct {
	strings.Builder
	trigger string
	do      func()
}

func (w *onLine) Write(p []byte) (int, error) {
	if w.do != nil && strings.Contains(string(p), w.trigger) {
		w.do()
		w.do = nil
	}
	return w.Builder.Write(p)
}

// TestExplainOutAppearsMeanwhile: a file that appears at --out while explain computes (another run's
// result, the user's own file) is kept as it is: the run fails naming --out, and leaves no temporary file.
func TestExplainOutAppearsMeanwhile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cf.csv")
	const theirs = "written by someone else meanwhile\n"
	stderr := &onLine{trigger: "searching", do: func() {
		if err := os.WriteFile(out, []byte(theirs), 0o644); err != nil {
			t.Error(err)
		}
	}}
	var stdout strings.Builder
	args := append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "0", "--out", out}, exampleFiles(filepath.Join(exampleDir, "credit.csv"))...)
	err := run(t.Context(), args, &stdout, stderr)
	if err == nil || !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), "exists") {
		t.Errorf("err = %v, want --out … exists", err)
	}
	if strings.Contains(stderr.String(), "wrote") {
		t.Errorf("stderr says it wrote:\n%s", stderr.String())
	}
	if got, _ := os.ReadFile(out); string(got) != theirs {
		t.Errorf("--out now holds %q, want the other writer's %q", got, theirs)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("the folder holds %d entries, want the one file", len(es))
	}
}

// TestExplainOutDirectory: an --out that names a folder (a trailing slash, an existing folder) is refused
// before anything is computed, and no folder is made.
func TestExplainOutDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, out := range []string{filepath.Join(dir, "new") + string(filepath.Separator), dir} {
		args := append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "0", "--out", out}, exampleFiles(filepath.Join(exampleDir, "credit.csv"))...)
		_, stderr, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), "folder") {
			t.Errorf("--out %s: err = %v, want a refusal naming the folder", out, err)
		}
		if strings.Contains(stderr, "searching") {
			t.Errorf("--out %s: searched before refusing:\n%s", out, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Errorf("a folder %s was made", filepath.Join(dir, "new"))
	}
}

// modelProbabilities reads the rows of a written counterfactuals' CSV as the schema reads them and
// returns the example model's class probabilities of each (models.FromONNX in the data's units: no
// standardisation in between).
func modelProbabilities(t *testing.T, path string) (rows []int, prob []float32, classes []string) {
	t.Helper()
	s, err := data.ReadSchema(filepath.Join(exampleDir, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	x, rows, err := data.ReadRows(path, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := backend.New()
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.FromONNX(b, filepath.Join(exampleDir, "credit.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	if prob, err = models.Probabilities(b, m, x); err != nil {
		t.Fatal(err)
	}
	return rows, prob, s.Classes
}

// TestExplainExtremeCellMetricsTrue: one cell of 1e9 in credit_amount (a mean near 1e6 and a standard
// deviation near 3e7 for values near 1000) must not change what the metrics say of the rows written:
// target_probability is the model's probability of the target at each written row, valid is that ≥ 0.5.
func TestExplainExtremeCellMetricsTrue(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(filepath.Join(exampleDir, "credit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(raw), "\n<0 DM,18,1049,", "\n<0 DM,18,1000000000,", 1)
	if text == string(raw) {
		t.Fatal("the example's first row changed; update the test")
	}
	csvPath := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(csvPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "cf.csv")
	if _, stderr, err := runCLI(t, append([]string{"explain-onnx", "--generator", "ECCCo", "--rows", "1-20", "--out", out}, exampleFiles(csvPath)...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	written := readCSVFile(t, out)
	_, prob, classes := modelProbabilities(t, out)
	k := len(classes)
	for i, r := range written {
		target := slices.Index(classes, r["target"])
		want := float64(prob[i*k+target])
		got, err := strconv.ParseFloat(r["target_probability"], 64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-7 {
			t.Errorf("row %s: target_probability %s, the model gives %.8g at the written row", r["row"], r["target_probability"], want)
		}
		if valid := r["valid"] == "true"; valid != (want >= 0.5) {
			t.Errorf("row %s: valid %s, the model's p(target) %.8g", r["row"], r["valid"], want)
		}
	}
}

// TestScoreFloat32Range: a counterfactual value beyond float32 (1e39) is refused naming its line and
// column, as the literal Inf is, instead of becoming +Inf.
func TestScoreFloat32Range(t *testing.T) {
	dir := t.TempDir()
	files := exampleFiles(filepath.Join(exampleDir, "credit.csv"))
	cf := filepath.Join(dir, "cf.csv")
	if _, _, err := runCLI(t, append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "0-1", "--out", cf}, files...)...); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(cf)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	f := strings.Split(lines[2], ",")
	f[4] = "1e39" // credit_amount: generator, row, checking, duration_months, credit_amount
	lines[2] = strings.Join(f, ",")
	big := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(big, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runCLI(t, append([]string{"score", "--counterfactuals", big}, files...)...)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "credit_amount") || !strings.Contains(err.Error(), "1e39") {
		t.Errorf("err = %v, want line 3, column credit_amount, 1e39 refused", err)
	}
}

// TestScoreReadsTargetColumn: score takes each counterfactual's target from the file's own "target"
// column (as explain writes it) rather than recomputing one. Row 0 of the example is predicted "bad"
// (p 0.52), so a counterfactual written towards "good" is scored towards it, one towards "bad" (the class
// it already has) is refused naming its line, as is a class that does not exist.
func TestScoreReadsTargetColumn(t *testing.T) {
	dir := t.TempDir()
	files := exampleFiles(filepath.Join(exampleDir, "credit.csv"))
	raw, err := os.ReadFile(filepath.Join(exampleDir, "credit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Split(string(raw), "\n")[1]
	cf := filepath.Join(dir, "cf.csv")
	write := func(target string) {
		t.Helper()
		text := "row,checking,duration_months,credit_amount,purpose,savings,employment,installment_rate,personal_status,age,housing,foreign_worker,target\n" +
			"0," + first[:strings.LastIndex(first, ",")] + "," + target + "\n"
		if err := os.WriteFile(cf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("good")
	scored := filepath.Join(dir, "scored.csv")
	if _, stderr, err := runCLI(t, append([]string{"score", "--counterfactuals", cf, "--out", scored}, files...)...); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if got := readCSVFile(t, scored); len(got) != 1 || got[0]["target"] != "good" || got[0]["predicted"] != "bad" {
		t.Fatalf("scored %v, want target good, predicted bad", got)
	}
	for _, c := range []struct{ target, want string }{{"bad", "already predicted"}, {"maybe", "maybe"}} {
		write(c.target)
		if _, _, err := runCLI(t, append([]string{"score", "--counterfactuals", cf}, files...)...); err == nil || !strings.Contains(err.Error(), "line 2") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("target %s: err = %v, want line 2 and %q", c.target, err, c.want)
		}
	}
	// The column and an explicit --target together are refused: one of them would be ignored.
	write("good")
	if _, _, err := runCLI(t, append([]string{"score", "--counterfactuals", cf, "--target", "good"}, files...)...); err == nil || !strings.Contains(err.Error(), "--target") {
		t.Errorf("--target with a target column: err = %v", err)
	}
}

// TestExplainSeedZero: --seed 0 is a seed like any other, not the default 42 in disguise: the
// unfaithfulness metric's SGLD samples, drawn with the seed, differ, so the metric does.
func TestExplainSeedZero(t *testing.T) {
	dir := t.TempDir()
	files := exampleFiles(filepath.Join(exampleDir, "credit.csv"))
	unfaith := map[string]string{}
	for _, seed := range []string{"0", "42"} {
		out := filepath.Join(dir, "cf-"+seed+".csv")
		if _, stderr, err := runCLI(t, append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "0", "--seed", seed, "--out", out}, files...)...); err != nil {
			t.Fatalf("--seed %s: %v\n%s", seed, err, stderr)
		}
		unfaith[seed] = readCSVFile(t, out)[0]["unfaithfulness"]
	}
	if unfaith["0"] == unfaith["42"] {
		t.Errorf("--seed 0 and --seed 42 give the same unfaithfulness %s", unfaith["0"])
	}
}

// TestExplainCustomSet: in explain-onnx a key given twice to --set is refused naming the key (as
// 'eccco help set' says), and max-iter, the search's step limit, is accepted and bounds the iterations.
func TestExplainCustomSet(t *testing.T) {
	files := exampleFiles(filepath.Join(exampleDir, "credit.csv"))
	for _, set := range [][]string{{"--set", "cost=0.1", "--set", "cost=0.2"}, {"--set", "cost=0.1,cost=0.2"}} {
		args := append(append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "0"}, set...), files...)
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), `"cost"`) || !strings.Contains(err.Error(), "twice") {
			t.Errorf("%v: err = %v, want cost given twice refused", set, err)
		}
	}
	out := filepath.Join(t.TempDir(), "cf.csv")
	if _, stderr, err := runCLI(t, append([]string{"explain-onnx", "--generator", "ECCCo", "--rows", "0-2", "--set", "max-iter=3", "--out", out}, files...)...); err != nil {
		t.Fatalf("--set max-iter=3: %v\n%s", err, stderr)
	}
	for _, r := range readCSVFile(t, out) {
		if n, err := strconv.Atoi(r["iterations"]); err != nil || n > 3 {
			t.Errorf("row %s: %s iterations, want at most 3", r["row"], r["iterations"])
		}
	}
}

// TestExplainONNXModelToExplain: an ONNX file given to explain (the paper's models) is refused naming
// explain-onnx, the command for a user's own model and CSV; the former spelling (explain --schema) still
// explains, the same bytes, with a notice on stderr.
func TestExplainONNXModelToExplain(t *testing.T) {
	_, _, err := runCLI(t, "explain", "--model", filepath.Join(exampleDir, "credit.onnx"), "--data", filepath.Join(exampleDir, "credit.csv"))
	if err == nil || !strings.Contains(err.Error(), "explain-onnx") {
		t.Errorf("an ONNX model given to explain: err = %v, want one naming explain-onnx", err)
	}
	files := exampleFiles(filepath.Join(exampleDir, "credit.csv"))
	args := append([]string{"--generator", "Wachter", "--rows", "0-1"}, files...)
	now, nowErr, err := runCLI(t, append([]string{"explain-onnx"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	old, oldErr, err := runCLI(t, append([]string{"explain"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	notice, rest, _ := strings.Cut(oldErr, "\n")
	if old != now || !strings.Contains(notice, "is now 'eccco explain-onnx'") || rest != nowErr {
		t.Errorf("explain --schema: stdout same %v, stderr %q, want explain-onnx's after a notice", old == now, oldErr)
	}
}

// TestExplainOutUnwritable: an --out in a folder where no file can be made (read-only; for root, whom
// permissions do not stop, /proc) is refused before anything is computed, naming --out and the folder,
// not after the search with a temporary file's name.
func TestExplainOutUnwritable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		dir = "/proc"
	}
	out := filepath.Join(dir, "cf.csv")
	_, stderr, err := runCLI(t, append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "0", "--out", out}, exampleFiles(filepath.Join(exampleDir, "credit.csv"))...)...)
	if err == nil || !strings.Contains(err.Error(), "--out") || !strings.Contains(err.Error(), "cannot make a file in "+dir) || strings.Contains(err.Error(), ".tmp-") {
		t.Errorf("err = %v, want --out refused naming %s", err, dir)
	}
	if strings.Contains(stderr, "searching") {
		t.Errorf("searched before refusing:\n%s", stderr)
	}
}

// TestExplainOutDash: --out - is standard output, as for most commands that write a file, not a file
// named "-" in the working directory.
func TestExplainOutDash(t *testing.T) {
	dir, err := filepath.Abs(exampleDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	args := []string{"explain-onnx", "--generator", "Wachter", "--rows", "0", "--set", "max-iter=5",
		"--model", filepath.Join(dir, "credit.onnx"), "--data", filepath.Join(dir, "credit.csv"), "--schema", filepath.Join(dir, "schema.json")}
	want, _, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	got, stderr, err := runCLI(t, append(args, "--out", "-")...)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || strings.Contains(stderr, "wrote") {
		t.Errorf("--out -: stdout %q, stderr %q; want the counterfactuals on standard output", got, stderr)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`a file "-" was written`)
	}
}

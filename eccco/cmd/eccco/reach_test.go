package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainCustomStop: on your own model, --set stop=max-iter never stops early, so every row takes
// exactly max-iter steps (the rule's definition), where the default rule stops the rows it converges.
func TestExplainCustomStop(t *testing.T) {
	files := []string{"--model", filepath.Join(exampleDir, "credit.onnx"), "--data", filepath.Join(exampleDir, "credit.csv"), "--schema", filepath.Join(exampleDir, "schema.json")}
	cf := filepath.Join(t.TempDir(), "cf.csv")
	if _, _, err := runCLI(t, append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "0-3", "--set", "max-iter=7,stop=max-iter", "--out", cf}, files...)...); err != nil {
		t.Fatal(err)
	}
	for _, r := range readCSVFile(t, cf) {
		if r["iterations"] != "7" {
			t.Errorf("row %s: %s iterations, want 7 (stop=max-iter)", r["row"], r["iterations"])
		}
	}
	if _, _, err := runCLI(t, append([]string{"explain-onnx", "--set", "stop=sometimes"}, files...)...); err == nil || !strings.Contains(err.Error(), "conditions, valid, max-iter, all-conditions") {
		t.Errorf("stop=sometimes: err = %v, want the rules listed", err)
	}
}

// TestExplainCustomUnreachedRows: the summary names the CSV line of every row whose counterfactual is not
// valid (the header is line 1, data row r line r + 2 in the example's CSV) and says what to raise.
func TestExplainCustomUnreachedRows(t *testing.T) {
	files := []string{"--model", filepath.Join(exampleDir, "credit.onnx"), "--data", filepath.Join(exampleDir, "credit.csv"), "--schema", filepath.Join(exampleDir, "schema.json")}
	cf := filepath.Join(t.TempDir(), "cf.csv")
	_, stderr, err := runCLI(t, append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "0-5", "--set", "max-iter=1", "--out", cf}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(stderr)
	invalid := 0
	for _, r := range readCSVFile(t, cf) {
		var row int
		fmt.Sscan(r["row"], &row)
		named := strings.Contains(stderr, fmt.Sprintf("line %d (data row %d)", row+2, row))
		if r["valid"] == "false" {
			invalid++
		}
		if named != (r["valid"] == "false") {
			t.Errorf("data row %d (valid %s): named in the summary %v", row, r["valid"], named)
		}
	}
	if invalid == 0 {
		t.Fatal("every counterfactual is valid after one step; the test needs some that are not")
	}
	for _, want := range []string{fmt.Sprintf("Wachter: %d of 6 did not reach the target class", invalid), "--set max-iter=4", "--set step="} {
		if !strings.Contains(stderr, want) {
			t.Errorf("summary lacks %q:\n%s", want, stderr)
		}
	}
}

// TestExplainPaperMaxIterAndStop: on the paper's data, --set max-iter and --set stop act too: with
// stop=max-iter the search takes exactly max-iter steps.
func TestExplainPaperMaxIterAndStop(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	model := filepath.Join(t.TempDir(), "mlp")
	if _, _, err := runCLI(t, "train", "--data", "linearly-separable", "--model", "mlp", "--set", "epochs=5", "--out", model); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "explain", "--data", "linearly-separable", "--model", model, "--generator", "Wachter", "--index", "2", "--set", "max-iter=3,stop=max-iter")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "3 iterations, stopped at the iteration limit") {
		t.Errorf("explain output lacks 3 iterations at the limit:\n%s", out)
	}
	if _, _, err := runCLI(t, "explain", "--data", "linearly-separable", "--model", model, "--set", "stop=valid,stop-on-all-conditions=true"); err == nil || !strings.Contains(err.Error(), "both given") {
		t.Errorf("stop with stop-on-all-conditions: err = %v, want refused", err)
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		if _, stderr, err := runCLI(t, append([]string{"explain", "--generator", "ECCCo+", "--rows", "0-1", "--out", out}, exampleFiles(csv)...)...); err != nil {
			t.Fatalf("%d rows: %v\n%s", n, err, stderr)
		}
		if got := readCSVFile(t, out); len(got) != 2 || got[0]["generator"] != "ECCCo+" {
			t.Errorf("%d rows: wrote %v", n, got)
		}
	}
}

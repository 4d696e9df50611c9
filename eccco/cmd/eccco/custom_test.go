package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/metrics"
)

const exampleDir = "../../../examples/onnx-credit"

func readCSVFile(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for j, h := range recs[0] {
			m[h] = r[j]
		}
		out = append(out, m)
	}
	return out
}

// TestExplainScoreCustom explains rows of the example's CSV for its ONNX model, then scores the written
// file with 'eccco score': the metrics read back are the ones written.
func TestExplainScoreCustom(t *testing.T) {
	dir := t.TempDir()
	files := []string{"--model", filepath.Join(exampleDir, "credit.onnx"), "--data", filepath.Join(exampleDir, "credit.csv"), "--schema", filepath.Join(exampleDir, "schema.json")}
	cf := filepath.Join(dir, "cf.csv")
	if _, _, err := runCLI(t, append([]string{"explain-onnx", "--generator", "Wachter", "--rows", "3,5-6", "--target", "other", "--out", cf}, files...)...); err != nil {
		t.Fatal(err)
	}
	written := readCSVFile(t, cf)
	if len(written) != 3 || written[0]["row"] != "3" || written[2]["row"] != "6" || written[0]["generator"] != "Wachter" {
		t.Fatalf("written rows %v", written)
	}
	for _, r := range written {
		if r["foreign_worker"] != "yes" && r["foreign_worker"] != "no" {
			t.Errorf("foreign_worker = %q is not a category", r["foreign_worker"])
		}
	}
	scored := filepath.Join(dir, "scored.csv")
	if _, _, err := runCLI(t, append([]string{"score", "--counterfactuals", cf, "--out", scored}, files...)...); err != nil {
		t.Fatal(err)
	}
	back := readCSVFile(t, scored)
	for i, r := range back {
		for _, k := range []string{"row", "target", "predicted", "probability", "valid", "unfaithfulness", "implausibility", "uncertainty", "cost", "redundancy", "violations"} {
			if r[k] != written[i][k] {
				t.Errorf("row %d: %s scored %q, explain wrote %q", i, k, r[k], written[i][k])
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append([]string{"explain-onnx", "--rows", "5-3"}, files...), "backwards"},
		{append([]string{"explain-onnx", "--rows", "1000"}, files...), "does not exist"},
		{append([]string{"explain-onnx", "--target", "maybe"}, files...), "not a class"},
		{append([]string{"explain-onnx", "--out", cf}, files...), "exists"},
		{[]string{"explain-onnx", "--schema", filepath.Join(exampleDir, "schema.json")}, "--model, --data and --schema"},
		{append([]string{"explain-onnx", "--schema", filepath.Join(exampleDir, "credit.csv")}, files[:4]...), "not a valid schema"},
		{append([]string{"score"}, files...), "--counterfactuals is needed"},
		{append([]string{"score", "--counterfactuals", filepath.Join(exampleDir, "credit.csv")}, files...), `no column "row"`},
	} {
		if _, _, err := runCLI(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.args, err, c.want)
		}
	}
}

// TestPrintOneDataUnits: for standardised data, explain prints the factual and the counterfactual in the
// data's units too (x·scale + mean, computed here by hand).
func TestPrintOneDataUnits(t *testing.T) {
	test := &data.Dataset{Name: "t", X: []float32{0.5, -1}, Y: []int{0}, FeatureNames: []string{"income", "age"}, ClassNames: []string{"no", "yes"}}
	std := &data.Standardizer{Mean: []float64{1000, 40}, Scale: []float64{200, 10}}
	x := &experiment.Explanation{Generator: experiment.Generator{Name: "Wachter"},
		Factuals: &experiment.Factuals{Rows: []int{0}, X: []float32{0.5, -1}, Predicted: []int{0}, Targets: []int{1}},
		Result:   &counterfactual.Result{X: []float32{1.25, -1}, Iterations: []int{3}, Converged: []bool{true}, Probability: []float32{0.7}},
		Scores:   []metrics.Scores{{Valid: true}}}
	var b strings.Builder
	printOne(&b, test, std, x)
	out := b.String()
	// income: 0.5·200 + 1000 = 1100 → 1.25·200 + 1000 = 1250; age: −1·10 + 40 = 30, unchanged.
	for _, want := range []string{"factual (data)", "1100", "1250 *", "30             30\n", "1 of 2 features changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

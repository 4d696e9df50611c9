package data

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFile writes content to name inside dir and returns the path.
func writeFile(t *testing.T, dir, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "small.csv", []byte("a,target,b\n1.5,1.0,-2\n0,0, 3e2 \n"))
	d, err := ReadCSV(p, CSVSpec{ClassNames: []string{"no", "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "small" || !reflect.DeepEqual(d.FeatureNames, []string{"a", "b"}) ||
		!reflect.DeepEqual(d.X, []float32{1.5, -2, 0, 300}) || !reflect.DeepEqual(d.Y, []int{1, 0}) ||
		!reflect.DeepEqual(d.ClassNames, []string{"no", "yes"}) {
		t.Errorf("got %+v", d)
	}
	if _, err := ReadCSV(p, CSVSpec{Features: []string{"a", "b"}}); err != nil {
		t.Errorf("matching Features: %v", err)
	}
	if _, err := ReadCSV(p, CSVSpec{Features: []string{"b", "a"}}); err == nil || !strings.Contains(err.Error(), "expected [b, a]") {
		t.Errorf("mismatching Features: %v", err)
	}
	q := writeFile(t, dir, "custom.csv", []byte("label,x\n2,1\n"))
	if d, err := ReadCSV(q, CSVSpec{Target: "label", ClassNames: []string{"a", "b", "c"}}); err != nil || d.Y[0] != 2 {
		t.Errorf("custom target: %v", err)
	}
}

func TestReadCSVErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"fields.csv", "a,b,target\n1,2,0\n1,2\n", []string{"line 3", "2 fields", "header has 3"}},
		{"number.csv", "a,b,target\n1,2,0\n1,x2,1\n", []string{"line 3", "column 2", `"b"`, `"x2" is not a number`}},
		{"empty-field.csv", "a,b,target\n1,,0\n", []string{"line 2", "column 2", "not a number"}},
		{"nan.csv", "a,b,target\n1,2,0\n3,4,1\nNaN,1,0\n", []string{"line 4", "column 1", `"a"`, "not finite"}},
		{"inf.csv", "a,b,target\n1,-Inf,0\n", []string{"line 2", "column 2", "not finite"}},
		{"label2.csv", "a,target\n1,0\n1,2\n", []string{"line 3", "label \"2\"", "0..1"}},
		{"label-half.csv", "a,target\n1,0.5\n", []string{"line 2", "label \"0.5\""}},
		{"label-neg.csv", "a,target\n1,-1\n", []string{"line 2", "label \"-1\""}},
		{"empty.csv", "", []string{"empty file"}},
		{"header-only.csv", "a,target\n", []string{"no data rows"}},
		{"no-target.csv", "a,b\n1,2\n", []string{"no column named \"target\""}},
		{"only-target.csv", "target\n1\n", []string{"no feature columns"}},
		{"quote.csv", "a,target\n\"1,0\n", []string{"line 2"}},
		{"huge.csv", "a,target\n1e39,0\n", []string{"float32 range"}},
	} {
		p := writeFile(t, dir, tc.name, []byte(tc.content))
		_, err := ReadCSV(p, CSVSpec{})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		for _, w := range append(tc.want, p) {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, msg, w)
			}
		}
	}
	missing := filepath.Join(dir, "nope.csv")
	_, err := ReadCSV(missing, CSVSpec{})
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
}

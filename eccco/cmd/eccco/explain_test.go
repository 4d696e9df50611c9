package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	model := filepath.Join(dir, "mlp")
	if _, _, err := runCLI(t, "train", "--data", "linearly-separable", "--model", "mlp", "--set", "epochs=20", "--out", model); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "explain", "--data", "linearly-separable", "--model", model, "--generator", "Wachter", "--index", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Wachter: test row 2", "p(y⁺|x′)", "factual", "features changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCLI(t, "explain", "--data", "linearly-separable", "--model", model, "--generator", "ECCCo", "--n", "20")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ECCCo: 20 counterfactuals", "Validity", "Unfaithfulness", "converged"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain --n output lacks %q:\n%s", want, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--generator", "frobnicate"}, "unknown generator"},
		{[]string{"--index", "100000"}, "outside"},
		{[]string{"--target", "7"}, "not a class"},
		{[]string{"--n", "0"}, "at least 1"},
		{[]string{"--model", filepath.Join(dir, "none")}, "neither a model kind"},
		{[]string{"--generator", "Wachter,wachter", "--n", "3"}, "listed twice"},
		{[]string{"--set", "max-iter=-1"}, "max-iter"},
		{[]string{"--run", "0"}, "--run"},
		{[]string{"--n", "1000000000"}, "at most 100000 factuals"}, // ran for minutes before it was bounded (issue 39)
	} {
		args := append([]string{"explain", "--data", "linearly-separable", "--model", model}, c.args...)
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eccco %s: err = %v, want it to mention %q", strings.Join(args, " "), err, c.want)
		}
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	err = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), err
}

func TestDataListShowsAllEight(t *testing.T) {
	out, _, err := runCLI(t, "data", "list", "--dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range data.Names() {
		if !strings.Contains(out, name) {
			t.Errorf("data list lacks %s:\n%s", name, out)
		}
	}
	if len(data.Names()) != 8 {
		t.Errorf("%d data sets, want 8", len(data.Names()))
	}
}

func TestUserErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"data", "fetch", "imagenet", "--dir", os.TempDir()}, "imagenet"},
		{[]string{"train", "--model", "mlp"}, "--data is required"},
		{[]string{"train", "--data", "moons", "--model", "svm"}, "unknown model"},
		{[]string{"train", "--data", "nosuch"}, "nosuch"},
		{[]string{"train", "--data", "moons", "--model", "lenet", "--out", "none"}, "image data set"},
	}
	for _, c := range cases {
		_, _, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eccco %s: err = %v, want it to mention %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

func TestTrainSavesAModel(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := filepath.Join(t.TempDir(), "m")
	out, _, err := runCLI(t, "train", "--data", "linearly-separable", "--model", "mlp", "--epochs", "5", "--out", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"accuracy", "precision", "F1", "paper:", "saved to"} {
		if !strings.Contains(out, want) {
			t.Errorf("train output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "spec.json")); err != nil {
		t.Errorf("no saved model: %v", err)
	}
}

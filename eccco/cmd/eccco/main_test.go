package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
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
	t.Setenv("ECCCO_DATA_DIR", t.TempDir())
	out, _, err := runCLI(t, "data", "list")
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
		{[]string{"data", "fetch", "imagenet"}, "imagenet"},
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
	out, _, err := runCLI(t, "train", "--data", "linearly-separable", "--model", "mlp", "--set", "epochs=5", "--out", dir)
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

func TestSampleWritesCSV(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	model := filepath.Join(dir, "jem")
	if _, _, err := runCLI(t, "train", "--data", "linearly-separable", "--model", "jem", "--set", "epochs=3", "--out", model); err != nil {
		t.Fatal(err)
	}
	csvPath := filepath.Join(dir, "s.csv")
	out, _, err := runCLI(t, "sample", "--data", "linearly-separable", "--model", model, "--class", "1", "--set", "chains=8,keep=4,steps=20", "--out", csvPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 samples of class", "predicts the class", "nearest training point", "wrote " + csvPath} {
		if !strings.Contains(out, want) {
			t.Errorf("sample output lacks %q:\n%s", want, out)
		}
	}
	raw, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 5 || !strings.HasSuffix(lines[0], ",energy,predicted") {
		t.Errorf("CSV has %d lines (want header + 4), header %q", len(lines), lines[0])
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--class", "2"}, "--class 2: "},
		{[]string{"--set", "clip=-2"}, "clip"},
		{[]string{"--set", "chains=-2"}, "chains"},
		{[]string{"--class", "1"}, "pass --replace"},
		{[]string{"--model", filepath.Join(dir, "nothing")}, "neither a model kind"},
	} {
		args := append([]string{"sample", "--data", "linearly-separable", "--model", model, "--out", csvPath}, c.args...)
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eccco %s: err = %v, want it to mention %q", strings.Join(args, " "), err, c.want)
		}
	}
}

// goAPIName matches a Go API field in a message (the Options.OwnModels, Model.Replace,
// FetchOptions.Dir): a command-line user cannot act on it.
var goAPIName = regexp.MustCompile(`\b(Options|CustomOptions|FetchOptions|Model|VAE|Protocol|Settings)\.[A-Z][A-Za-z]+`)

// The saved-model clash said "replace it explicitly (Model.Replace)" and the data directory error
// "FetchOptions.Dir" (issue 39). Now each names the flag or folder a user can change, and no Go field.
func TestMessagesNameFlagsNotGoFields(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a 1-epoch model and VAE")
	}
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	models := filepath.Join(dir, "models")
	for _, args := range [][]string{
		{"train", "--data", "moons", "--model", "mlp", "--set", "epochs=1", "--models-dir", models},
		{"vae", "--data", "moons", "--set", "vae-epochs=1", "--models-dir", models},
	} {
		if _, _, err := runCLI(t, args...); err != nil {
			t.Fatalf("eccco %s: %v", strings.Join(args, " "), err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "--data", "moons", "--model", "mlp", "--set", "epochs=2", "--models-dir", models}, "--replace"},
		{[]string{"vae", "--data", "moons", "--set", "vae-epochs=2", "--models-dir", models}, "models directory"},
	} {
		_, _, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eccco %s: err = %v, want it to name %q", strings.Join(c.args, " "), err, c.want)
		} else if m := goAPIName.FindString(err.Error()); m != "" {
			t.Errorf("eccco %s: the message names the Go field %s: %v", strings.Join(c.args, " "), m, err)
		}
	}
	// The data directory is $ECCCO_DATA_DIR's: a local fault names it.
	t.Setenv("ECCCO_DATA_DIR", filepath.Join(file, "x"))
	if _, _, err := runCLI(t, "data", "fetch", "german-credit", "--from", filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "ECCCO_DATA_DIR") {
		t.Errorf("eccco data fetch german-credit into a file's child: err = %v, want it to name ECCCO_DATA_DIR", err)
	}
}

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Each case here was reproduced as a data-loss or silent-wrong-result fault before the experiment layer.

// `train --out EXISTING_DIR` wiped the folder. Now: refused before training, the user's file intact;
// a saved model is replaced only with --replace.
func TestTrainNeverWipesAFolder(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := filepath.Join(t.TempDir(), "mine")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	precious := filepath.Join(dir, "thesis.tex")
	if err := os.WriteFile(precious, []byte("years of work"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--replace"}} {
		args := append([]string{"train", "--data", "linearly-separable", "--set", "epochs=2", "--out", dir}, extra...)
		if _, _, err := runCLI(t, args...); !errors.Is(err, models.ErrExists) {
			t.Errorf("eccco %s: err = %v, want ErrExists", strings.Join(args, " "), err)
		}
	}
	if raw, err := os.ReadFile(precious); err != nil || string(raw) != "years of work" {
		t.Fatalf("the user's file is gone or changed: %q, %v", raw, err)
	}
	model := filepath.Join(t.TempDir(), "m")
	args := []string{"train", "--data", "linearly-separable", "--set", "epochs=2", "--out", model}
	if _, _, err := runCLI(t, args...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, args...); !errors.Is(err, models.ErrExists) {
		t.Errorf("training over a saved model without --replace: err = %v, want ErrExists", err)
	}
	if out, _, err := runCLI(t, append(args, "--replace")...); err != nil || !strings.Contains(out, "saved to") {
		t.Errorf("--replace over a saved model: %v\n%s", err, out)
	}
}

// A circles model explained moons; a --seed 1 model was evaluated with seed 42 (146 of its 200 "test"
// rows were its own training rows). Now both are ErrMismatch naming what differs.
func TestForeignModelsAreRefused(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	circles := filepath.Join(dir, "circles")
	if _, _, err := runCLI(t, "train", "--data", "circles", "--set", "epochs=2", "--out", circles); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "explain", "--data", "moons", "--model", circles); !errors.Is(err, experiment.ErrMismatch) || !strings.Contains(err.Error(), "circles") {
		t.Errorf("circles model explaining moons: err = %v, want ErrMismatch naming circles", err)
	}
	seed1 := filepath.Join(dir, "seed1")
	if _, _, err := runCLI(t, "train", "--data", "circles", "--set", "epochs=2", "--seed", "1", "--out", seed1); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "explain", "--data", "circles", "--model", seed1); !errors.Is(err, experiment.ErrMismatch) || !strings.Contains(err.Error(), "seed 1") {
		t.Errorf("seed-1 model explained with seed 42: err = %v, want ErrMismatch naming seed 1", err)
	}
	if _, _, err := runCLI(t, "explain", "--data", "circles", "--model", seed1, "--seed", "1"); err != nil {
		t.Errorf("the seed-1 model with --seed 1: %v", err)
	}
	authorsCode := filepath.Join(dir, "authors")
	if _, _, err := runCLI(t, "train", "--data", "circles", "--set", "epochs=2", "--mode", "authors-code", "--out", authorsCode); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, "explain", "--data", "circles", "--model", authorsCode); !errors.Is(err, experiment.ErrMismatch) || !strings.Contains(err.Error(), "mode") {
		t.Errorf("an authors'-code model used in the paper mode: err = %v, want ErrMismatch naming the mode", err)
	}
}

// `bench --runs -1` ran 50 runs; `--generators wachter` gave "0 of 0 cells (NaN %)"; a repeated --data
// name duplicated rows. Now: errors, canonical names, and a refusal.
func TestBenchRejectsBadCounts(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	base := []string{"bench", "--data", "linearly-separable", "--models", "mlp", "--set", "epochs=2", "--models-dir", filepath.Join(dir, "models"), "--out", filepath.Join(dir, "out")}
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"--runs", "-1"}, "--runs"},
		{[]string{"--factuals", "-5"}, "--factuals"},
		{[]string{"--set", "epochs=-3"}, "epochs"},
		{[]string{"--generators", "Wachter,wachter"}, "listed twice"},
		{[]string{"--generators", "nosuch"}, "unknown generator"},
		{[]string{"--models", "mlp,mlp"}, "listed twice"},
		{[]string{"--set", "lambda=1"}, "unknown key \"lambda\""},
		{[]string{"--mode", "julia"}, "unknown mode"},
	} {
		args := append(append([]string{}, base...), c.extra...)
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("eccco %s: err = %v, want it to mention %q", strings.Join(args, " "), err, c.want)
		}
	}
	dup := append(append([]string{}, base...), "--runs", "1", "--factuals", "3")
	dup[2] = "linearly-separable,linearly-separable"
	if _, _, err := runCLI(t, dup...); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("repeated --data: err = %v, want a refusal", err)
	}
	out, _, err := runCLI(t, append(append([]string{}, base...), "--runs", "1", "--factuals", "3", "--generators", "wachter")...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "NaN") || !strings.Contains(out, "of 12 cells") {
		t.Errorf("--generators wachter: the comparison should cover the 12 cells of Wachter and the MLP (6 metrics, all and valid):\n%s", out)
	}
}

// With nothing trained beforehand, explain trains what REVISE needs (the model and the VAE) and succeeds;
// a second run reuses them.
func TestExplainREVISEFromScratch(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	models := filepath.Join(t.TempDir(), "models")
	args := []string{"explain", "--data", "moons", "--model", "mlp", "--generator", "REVISE", "--set", "epochs=2", "--models-dir", models}
	out, stderr, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "REVISE: test row") || !strings.Contains(stderr, "training one") {
		t.Errorf("explain REVISE from scratch:\n%s\n%s", out, stderr)
	}
	_, stderr, err = runCLI(t, args...)
	if err != nil || strings.Contains(stderr, "training") || !strings.Contains(stderr, "loaded") {
		t.Errorf("second explain retrained or failed: %v\n%s", err, stderr)
	}
}

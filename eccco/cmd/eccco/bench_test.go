package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Kill `eccco bench` at a random moment (its context is cancelled after a random delay, mid-unit or
// between units), run it again: the final results and tables are byte-identical to an uninterrupted
// run's; and a second uninterrupted run with the same seed is byte-identical too.
func TestBenchInterruptedAndResumedIsIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the benchmark three times")
	}
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	modelsDir := filepath.Join(dir, "models")
	args := func(out string) []string {
		return []string{"bench", "--data", "linearly-separable", "--runs", "3", "--factuals", "10", "--models", "mlp",
			"--generators", "Wachter,ECCCo,Schut,ECCCo-L1", "--models-dir", modelsDir, "--out", out}
	}
	if _, _, err := runCLI(t, args(filepath.Join(dir, "a"))...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCLI(t, args(filepath.Join(dir, "b"))...); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	delay := time.Duration(20+rng.IntN(600)) * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), delay)
	var out, errb bytes.Buffer
	err := run(ctx, args(filepath.Join(dir, "c")), &out, &errb)
	cancel()
	t.Logf("interrupted after %v: %v", delay, err)
	if _, _, err := runCLI(t, args(filepath.Join(dir, "c"))...); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"results.csv", "tables/table-linearly-separable.md", "tables/table-linearly-separable-valid.tex", "tables/cells.csv", "tables/params-generators.md"} {
		a, err := os.ReadFile(filepath.Join(dir, "a", f))
		if err != nil {
			t.Fatal(err)
		}
		for _, other := range []string{"b", "c"} {
			b, err := os.ReadFile(filepath.Join(dir, other, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs between run a and run %s", f, other)
			}
		}
	}
	res, _ := os.ReadFile(filepath.Join(dir, "a", "results.csv"))
	if n := strings.Count(string(res), "\n"); n != 1+3*4*10 {
		t.Errorf("results.csv has %d lines, want header + 120", n)
	}
	tout, _, err := runCLI(t, "tables", "--in", filepath.Join(dir, "a"), "--out", filepath.Join(dir, "t"))
	if err != nil || !strings.Contains(tout, "wrote the tables") {
		t.Errorf("eccco tables: %v\n%s", err, tout)
	}
}

// A listed data set that is not on disk fails the benchmark with the command that fetches it, unless
// --skip-missing is given: then the others run (reproduce.sh --quick relies on this on machines where
// German Credit cannot be downloaded). An unknown name is an error either way.
func TestBenchSkipMissing(t *testing.T) {
	t.Setenv("ECCCO_PROGRESS", "0")
	dir := t.TempDir()
	empty := filepath.Join(dir, "no-data")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ECCCO_DATA_DIR", empty)
	args := func(extra ...string) []string {
		return append([]string{"bench", "--data", "linearly-separable,german-credit", "--runs", "1", "--factuals", "5",
			"--models", "mlp", "--generators", "Wachter", "--models-dir", filepath.Join(dir, "models"), "--out", filepath.Join(dir, "out")}, extra...)
	}
	if _, _, err := runCLI(t, args()...); err == nil || !strings.Contains(err.Error(), "data fetch german-credit") {
		t.Fatalf("missing German Credit without --skip-missing: error %v, want one naming 'eccco data fetch german-credit'", err)
	}
	_, stderr, err := runCLI(t, args("--skip-missing")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "skipping german-credit") {
		t.Errorf("stderr does not say German Credit was skipped: %q", stderr)
	}
	res, err := os.ReadFile(filepath.Join(dir, "out", "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(res), "\n"); n != 1+5 || strings.Contains(string(res), "german-credit") {
		t.Errorf("results.csv has %d lines (want 6, linearly separable only):\n%s", n, res)
	}
	bad := args("--skip-missing")
	bad[2] = "linearly-separable,no-such-set"
	if _, _, err := runCLI(t, bad...); err == nil {
		t.Error("unknown data set with --skip-missing: no error")
	}
}

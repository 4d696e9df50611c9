package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceArguments: the arguments and settings ./reproduce.sh passes on, refused in the user's
// words before any stage runs (faults.sh's reproduce-mode-no-value, and the settings the shell checked).
func TestReproduceArguments(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"mode-no-value", []string{"--quick", "--mode"}, nil, "flag needs an argument: -mode"},
		{"mode-unknown", []string{"--mode", "julia"}, nil, "--mode must be authors-code or paper, not \"julia\""},
		{"unknown-option", []string{"--fast"}, nil, "flag provided but not defined: -fast"},
		{"argument", []string{"--quick", "extra"}, nil, "unexpected argument \"extra\""},
		{"jobs-zero", []string{"--quick"}, map[string]string{"ECCCO_JOBS": "0"}, "ECCCO_JOBS must be a whole number ≥ 1, not \"0\""},
		{"jobs-word", []string{"--quick"}, map[string]string{"ECCCO_JOBS": "two"}, "ECCCO_JOBS must be a whole number ≥ 1"},
		{"image-backend-spaces", nil, map[string]string{"ECCCO_IMAGE_BACKEND": "xla cpu"}, "ECCCO_IMAGE_BACKEND=\"xla cpu\" is not a backend configuration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			err := runReproduce(context.Background(), tc.args, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), tc.want) {
				t.Fatalf("err = %v (stderr %q), want %q", err, stderr.String(), tc.want)
			}
			if _, err := os.Stat("runs"); err == nil {
				t.Error("a refused run made runs/")
			}
		})
	}
}

// TestReproduceBackends: ECCCO_IMAGE_BACKEND and ECCCO_TABULAR_BACKEND as the shell resolved them; the
// quick profile stays on the default backend.
func TestReproduceBackends(t *testing.T) {
	dir := t.TempDir()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name           string
		quick          bool
		env            map[string]string
		image, tabular string
	}{
		{"defaults", false, map[string]string{"ECCCO_XLA_DIR": dir}, "", ""},
		{"go", false, map[string]string{"ECCCO_IMAGE_BACKEND": "go", "ECCCO_TABULAR_BACKEND": "none"}, "", ""},
		{"explicit", false, map[string]string{"ECCCO_IMAGE_BACKEND": "xla:cpu", "ECCCO_TABULAR_BACKEND": "xla:cpu"}, "xla:cpu", "xla:cpu"},
		// auto without XLA compiled in (this test binary) or its plugin: the default backend.
		{"auto-without-xla", false, map[string]string{"ECCCO_IMAGE_BACKEND": "auto", "ECCCO_TABULAR_BACKEND": "auto", "ECCCO_XLA_DIR": dir}, "", ""},
		{"auto-under-GOMLX_BACKEND", false, map[string]string{"ECCCO_IMAGE_BACKEND": "auto", "GOMLX_BACKEND": "go"}, "", ""},
		{"quick", true, map[string]string{"ECCCO_IMAGE_BACKEND": "xla:cpu", "ECCCO_TABULAR_BACKEND": "xla:cpu"}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "pjrt_c_api_cpu_plugin.so"), nil, 0o644); err != nil && tc.name == "auto-without-xla" {
				t.Fatal(err)
			}
			c, err := reproduceConfig(tc.quick, "authors-code", env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if c.ImageBackend != tc.image || c.TabularBackend != tc.tabular {
				t.Errorf("image %q, tabular %q; want %q, %q", c.ImageBackend, c.TabularBackend, tc.image, tc.tabular)
			}
		})
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/reproduce"
)

// reproduceExit ends the process with a signal's exit status after an interrupted run (a seam for tests).
var reproduceExit = os.Exit

func runReproduce(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("reproduce", "reproduce [--quick] [--mode authors-code|paper]", stderr)
	quick := fs.Bool("quick", false, "the quick profile (minutes; outputs in runs/quick/) instead of the paper's full protocol")
	mode := fs.String("mode", "authors-code", "authors-code (the authors' code, the published numbers) or paper (the paper's equations; outputs in runs/paper-mode/)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("reproduce: unexpected argument %q (see eccco reproduce -h)", fs.Arg(0))
	}
	c, err := reproduceConfig(*quick, *mode, os.Getenv)
	if err != nil {
		return err
	}
	c.Run, c.Stdout, c.Stderr = run, stdout, stderr
	_, err = reproduce.Run(ctx, c)
	var ie *reproduce.InterruptedError
	if errors.As(err, &ie) {
		reproduceExit(ie.Code())
	}
	return err
}

// reproduceConfig reads the run's settings from the flags and the environment (ECCCO_JOBS,
// ECCCO_MIRROR, ECCCO_IMAGE_BACKEND, ECCCO_TABULAR_BACKEND; reproduce.sh's help describes them).
func reproduceConfig(quick bool, mode string, getenv func(string) string) (reproduce.Config, error) {
	c := reproduce.Config{Quick: quick, Mode: mode, Mirror: getenv("ECCCO_MIRROR"), Jobs: 1}
	if mode != "authors-code" && mode != "paper" {
		return c, fmt.Errorf("reproduce: --mode must be authors-code or paper, not %q", mode)
	}
	if j := getenv("ECCCO_JOBS"); j != "" {
		n, err := strconv.Atoi(j)
		if err != nil || n < 1 || strings.TrimSpace(j) != j {
			return c, fmt.Errorf("reproduce: ECCCO_JOBS must be a whole number ≥ 1, not %q", j)
		}
		c.Jobs = n
	} else if runtime.NumCPU() >= 2 {
		c.Jobs = 2
	}
	if quick {
		return c, nil // the quick profile stays on the default backend (its small models compile in milliseconds)
	}
	var err error
	if c.ImageBackend, err = backendSetting("ECCCO_IMAGE_BACKEND", "auto", getenv); err != nil {
		return c, err
	}
	c.TabularBackend, err = backendSetting("ECCCO_TABULAR_BACKEND", "go", getenv)
	return c, err
}

// backendSetting resolves ECCCO_IMAGE_BACKEND or ECCCO_TABULAR_BACKEND: "" for the default backend
// (go, none), xla:cpu for auto where XLA can run here (GOMLX_BACKEND unset, eccco built with -tags xla,
// the pinned plugin installed: reproduce.sh installs it), else the configuration given.
func backendSetting(name, def string, getenv func(string) string) (string, error) {
	v := getenv(name)
	if v == "" {
		v = def
	}
	switch v {
	case "go", "none":
		return "", nil
	case "auto":
		if getenv(backend.EnvVar) != "" {
			return "", nil
		}
		xla := false
		for _, a := range backend.Available() {
			xla = xla || strings.HasPrefix(a, "xla")
		}
		dir := getenv("ECCCO_XLA_DIR")
		if dir == "" {
			dir = ".xla"
		}
		if _, err := os.Stat(filepath.Join(dir, "pjrt_c_api_cpu_plugin.so")); !xla || err != nil {
			return "", nil
		}
		return "xla:cpu", nil
	}
	if strings.ContainsAny(v, " \t") {
		return "", fmt.Errorf("reproduce: %s=%q is not a backend configuration", name, v)
	}
	return v, nil
}

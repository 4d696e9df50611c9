package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/backend"
)

func runBackend(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("backend", "backend", stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "configuration: %s (from %s, default %q)\n", backend.Config(), backend.EnvVar, backend.Default)
	fmt.Fprintf(stdout, "compiled in:   %s\n", strings.Join(backend.Available(), ", "))
	b, err := backend.New()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "running:       %s\n", b.Description())
	if flags := os.Getenv(backend.XLAFlagsEnv); flags != "" {
		// eccco adds its flags for XLA's CPU compiler (backend.XLACPUOptimizationLevel, XLACPUYNNFusionTypes).
		fmt.Fprintf(stdout, "%s:     %s\n", backend.XLAFlagsEnv, flags)
	}
	return nil
}

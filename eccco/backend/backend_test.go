package backend

import (
	"slices"
	"strings"
	"testing"
)

func TestDefaultIsPureGo(t *testing.T) {
	t.Setenv(EnvVar, "")
	if got := Config(); !strings.HasPrefix(got, "go:") && got != "go" {
		t.Fatalf("Config() with %s unset = %q, want the pure-Go backend", EnvVar, got)
	}
	b, err := New()
	if err != nil {
		t.Fatalf("New(): %v", err)
	}
	if b.Name() != "go" && !strings.HasPrefix(strings.ToLower(b.Name()), "go") {
		t.Errorf("backend name = %q, want the pure-Go backend", b.Name())
	}
	if !slices.Contains(Available(), "go") {
		t.Errorf("Available() = %v, lacks \"go\"", Available())
	}
}

func TestHonoursEnvVar(t *testing.T) {
	for _, cfg := range []string{"go", "go:ops_parallel", "go:ops_sequential"} {
		t.Setenv(EnvVar, cfg)
		if got := Config(); got != cfg {
			t.Errorf("Config() = %q with %s=%q", got, EnvVar, cfg)
		}
		if _, err := New(); err != nil {
			t.Fatalf("New() with %s: %v", cfg, err)
		}
	}
}

func TestUnavailableBackendIsAnError(t *testing.T) {
	for _, cfg := range []string{"nosuchbackend", "xla:cuda"} {
		if cfg == "xla:cuda" && slices.Contains(Available(), "xla") {
			continue // built with -tags xla
		}
		t.Setenv(EnvVar, cfg)
		b, err := New()
		if err == nil {
			t.Fatalf("New() with %s=%q returned %v and no error", EnvVar, cfg, b)
		}
		for _, want := range []string{cfg, "available: go"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
		if strings.HasPrefix(cfg, "xla") && !strings.Contains(err.Error(), "-tags xla") {
			t.Errorf("error %q does not say how to enable XLA", err)
		}
	}
}

// Named keeps one backend per configuration and gives GOMLX_BACKEND's own configuration Shared's.
func TestNamedKeepsOnePerConfiguration(t *testing.T) {
	t.Setenv(EnvVar, "")
	a, err := Named("go")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := Named("go"); err != nil || b != a {
		t.Errorf("Named(go) twice: %v, same value %v", err, b == a)
	}
	s, err := Shared()
	if err != nil {
		t.Fatal(err)
	}
	if d, err := Named(Default); err != nil || d != s {
		t.Errorf("Named(%q) is not Shared(): %v", Default, err)
	}
	if a == s {
		t.Error("Named(go) returned the shared go:ops_sequential backend")
	}
	if _, err := Named("nosuchbackend"); err == nil || !strings.Contains(err.Error(), "not compiled into this binary") {
		t.Errorf("Named(nosuchbackend) = %v, want an error naming what is compiled in", err)
	}
}

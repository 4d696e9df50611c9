package backend

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ImagesConfig follows ECCCO_IMAGE_BACKEND, then GOMLX_BACKEND, then what is compiled in and installed.
func TestImagesConfig(t *testing.T) {
	withPlugin := t.TempDir()
	if err := os.WriteFile(filepath.Join(withPlugin, "pjrt_c_api_cpu_plugin.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	xla := slices.Contains(Available(), "xla")
	auto := ""
	if xla {
		auto = "xla:cpu"
	}
	for _, c := range []struct {
		images, gomlx, dir, want string
	}{
		{"", "", withPlugin, auto},
		{"auto", "", withPlugin, auto},
		{"", "", t.TempDir(), ""}, // no plugin
		{"", "go", withPlugin, ""},
		{"go", "", withPlugin, ""},
		{"none", "", withPlugin, ""},
		{"xla:cuda", "go", t.TempDir(), "xla:cuda"},
	} {
		t.Setenv(ImagesEnvVar, c.images)
		t.Setenv(EnvVar, c.gomlx)
		t.Setenv(XLADirEnv, c.dir)
		got, why := ImagesConfig()
		if got != c.want || why == "" {
			t.Errorf("%s=%q %s=%q: ImagesConfig() = %q (%s), want %q", ImagesEnvVar, c.images, EnvVar, c.gomlx, got, why, c.want)
		}
	}
}

// Images follows ImagesConfig and says which backend and why; a configuration named by
// ECCCO_IMAGE_BACKEND that cannot start is an error, and "go" keeps the default (Shared's) backend.
func TestImages(t *testing.T) {
	t.Setenv(EnvVar, "")
	t.Setenv(XLADirEnv, t.TempDir()) // no plugin: auto stays on the default backend
	shared, err := Shared()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ images, want string }{
		{"go", "images run on pure Go (go:ops_sequential) (ECCCO_IMAGE_BACKEND=go)"},
		{"", "images run on pure Go (go:ops_sequential) ("},
		{"auto", "images run on pure Go (go:ops_sequential) ("},
	} {
		t.Setenv(ImagesEnvVar, c.images)
		b, line, err := Images()
		if err != nil || b != shared || !strings.HasPrefix(line, c.want) {
			t.Errorf("%s=%q: Images() = %v, %q, %v; want the shared backend and %q…", ImagesEnvVar, c.images, b, line, err, c.want)
		}
		if c.images != "go" && !slices.Contains(Available(), "xla") && !strings.Contains(line, "-tags xla") {
			t.Errorf("%s=%q without XLA compiled in: %q does not say to build with -tags xla", ImagesEnvVar, c.images, line)
		}
	}
	t.Setenv(ImagesEnvVar, "nosuch:cpu")
	if b, line, err := Images(); err == nil || !strings.Contains(err.Error(), "ECCCO_IMAGE_BACKEND=nosuch:cpu") {
		t.Errorf("%s=nosuch:cpu: Images() = %v, %q, %v; want an error naming it", ImagesEnvVar, b, line, err)
	}
}

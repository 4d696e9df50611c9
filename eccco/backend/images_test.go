package backend

import (
	"os"
	"path/filepath"
	"slices"
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

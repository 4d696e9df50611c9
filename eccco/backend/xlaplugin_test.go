package backend

import (
	"os"
	"path/filepath"
	"testing"
)

// unsetEnv removes an environment variable for the duration of the test.
func unsetEnv(t *testing.T, key string) {
	t.Helper()
	old, had := os.LookupEnv(key)
	t.Setenv(key, "") // registers the restore and forbids t.Parallel
	_ = os.Unsetenv(key)
	if had {
		t.Cleanup(func() { _ = os.Setenv(key, old) })
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not really a plugin"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveXLAConfigFindsProjectPlugins(t *testing.T) {
	unsetEnv(t, pjrtPathEnv)
	unsetEnv(t, XLADirEnv)
	root := t.TempDir()
	cpu := filepath.Join(root, ".xla", "pjrt_c_api_cpu_plugin.so")
	cuda := filepath.Join(root, ".xla", "nvidia", "pjrt_c_api_cuda_plugin.so")
	touch(t, cpu)
	touch(t, cuda)
	sub := filepath.Join(root, "eccco", "counterfactual")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub) // as `go test` runs a package: .xla is found in a parent folder

	if got := XLADir(); got != filepath.Join(root, ".xla") {
		t.Errorf("XLADir() = %q, want %q", got, filepath.Join(root, ".xla"))
	}
	for config, want := range map[string]string{
		"xla:cpu":                  "xla:" + cpu,
		"xla":                      "xla:" + cpu,
		"xla:cpu,noshared_buffers": "xla:" + cpu + ",noshared_buffers",
		"xla:cuda":                 "xla:" + cuda,
		"stablehlo:cpu":            "stablehlo:" + cpu,
		"xla:rocm":                 "xla:rocm",             // not installed: go-xla searches (and fails) as usual
		"xla:/some/where/p.so":     "xla:/some/where/p.so", // explicit paths are the user's
		"xla:../cpu":               "xla:../cpu",
	} {
		if got := resolveXLAConfig(config); got != want {
			t.Errorf("resolveXLAConfig(%q) = %q, want %q", config, got, want)
		}
	}

	// PJRT_PLUGIN_LIBRARY_PATH is the user's explicit choice: go-xla searches exactly there.
	t.Setenv(pjrtPathEnv, t.TempDir())
	if got := resolveXLAConfig("xla:cpu"); got != "xla:cpu" {
		t.Errorf("with %s set, resolveXLAConfig(xla:cpu) = %q, want it unchanged", pjrtPathEnv, got)
	}
}

func TestXLADirEnvOverridesTheSearch(t *testing.T) {
	unsetEnv(t, pjrtPathEnv)
	other := t.TempDir()
	plugin := filepath.Join(other, "pjrt_c_api_cpu_plugin.so")
	touch(t, plugin)
	t.Setenv(XLADirEnv, other)
	t.Chdir(t.TempDir()) // no .xla here or above (the temporary folders have none)
	if got := resolveXLAConfig("xla:cpu"); got != "xla:"+plugin {
		t.Errorf("resolveXLAConfig(xla:cpu) = %q with %s=%s, want %q", got, XLADirEnv, other, "xla:"+plugin)
	}
	t.Setenv(XLADirEnv, t.TempDir()) // empty folder: nothing found, config unchanged
	if got := resolveXLAConfig("xla:cpu"); got != "xla:cpu" {
		t.Errorf("resolveXLAConfig(xla:cpu) = %q with an empty %s, want it unchanged", got, XLADirEnv)
	}
	if _, ok := FindXLAPlugin("../cpu"); ok {
		t.Error("FindXLAPlugin accepted a name with a path separator")
	}
}

// XLA's CPU plugin gets optimisation level 1 and YNNPACK for single matrix products only, each unless the
// user's XLA_FLAGS name that flag (an empty YNNPACK list is a choice too); the CUDA plugin's flags are left alone.
func TestXLACPUFlags(t *testing.T) {
	const both = "--xla_backend_optimization_level=1 --xla_cpu_experimental_ynn_fusion_type=individual_dot"
	for _, c := range []struct {
		config, flags, want string
		changed             bool
	}{
		{"xla:cpu", "", both, true},
		{"xla", "", both, true},
		{"xla:/opt/x/.xla/pjrt_c_api_cpu_plugin.so", "--xla_dump_to=/tmp/d", "--xla_dump_to=/tmp/d " + both, true},
		{"xla:cpu,some=option", " ", both, true},
		{"xla:cpu", "--xla_backend_optimization_level=3",
			"--xla_backend_optimization_level=3 --xla_cpu_experimental_ynn_fusion_type=individual_dot", true},
		{"xla:cpu", "--xla_backend_optimization_level 2",
			"--xla_backend_optimization_level 2 --xla_cpu_experimental_ynn_fusion_type=individual_dot", true},
		{"xla:cpu", "--xla_cpu_experimental_ynn_fusion_type=",
			"--xla_cpu_experimental_ynn_fusion_type= --xla_backend_optimization_level=1", true},
		{"xla:cpu", "--xla_cpu_experimental_ynn_fusion_type=dot,eltwise --xla_backend_optimization_level=2",
			"--xla_cpu_experimental_ynn_fusion_type=dot,eltwise --xla_backend_optimization_level=2", false},
		{"xla:cuda", "", "", false},
		{"xla:/opt/x/.xla/nvidia/pjrt_c_api_cuda_plugin.so", "--a", "--a", false},
	} {
		got, changed := xlaCPUFlags(c.config, c.flags)
		if got != c.want || changed != c.changed {
			t.Errorf("xlaCPUFlags(%q, %q) = %q, %v; want %q, %v", c.config, c.flags, got, changed, c.want, c.changed)
		}
	}
}

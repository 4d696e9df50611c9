package backend

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// XLADirEnv names the folder holding the project's PJRT plugins, as scripts/install-xla.sh writes it. When it
// is unset, the folder ".xla" in the working directory or its nearest parent that has one is used, so that
// `go test -tags xla ./...` (run in each package's folder) and binaries run from the repository find it.
const XLADirEnv = "ECCCO_XLA_DIR"

// pjrtPathEnv is go-xla's own search path for plugins. go-xla reads it once, when the program starts.
const pjrtPathEnv = "PJRT_PLUGIN_LIBRARY_PATH"

// XLADir returns the project's plugin folder: $ECCCO_XLA_DIR, else the nearest ".xla" folder found from the
// working directory upwards; "" if there is none.
func XLADir() string {
	if d := strings.TrimSpace(os.Getenv(XLADirEnv)); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			return abs
		}
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		candidate := filepath.Join(dir, ".xla")
		if fi, err := os.Stat(candidate); err == nil && fi.IsDir() {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// FindXLAPlugin returns the absolute path of the PJRT plugin named name ("cpu", "cuda", ...) in the project's
// plugin folder (see XLADir): <dir>/pjrt_c_api_<name>_plugin.so, or <dir>/nvidia/pjrt_c_api_<name>_plugin.so
// (where the CUDA plugin lives, beside the NVIDIA libraries, as go-xla lays them out).
func FindXLAPlugin(name string) (string, bool) {
	dir := XLADir()
	if dir == "" || name == "" || strings.ContainsAny(name, `/\`) {
		return "", false
	}
	ext := "so"
	switch runtime.GOOS {
	case "darwin":
		ext = "dylib"
	case "windows":
		ext = "dll"
	}
	file := "pjrt_c_api_" + name + "_plugin." + ext
	for _, p := range []string{filepath.Join(dir, file), filepath.Join(dir, "nvidia", file)} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// resolveXLAConfig rewrites an XLA configuration "xla:<plugin>[,options]" to name the plugin by its absolute
// path when the project's plugin folder holds it, because go-xla only searches folders it read when the
// program started. An empty plugin means "cpu". Configurations that already give a path, or where the user
// set PJRT_PLUGIN_LIBRARY_PATH (go-xla then searches exactly there), or whose plugin is not in the folder,
// are returned unchanged.
func resolveXLAConfig(config string) string {
	name, rest, _ := strings.Cut(config, ":")
	plugin, opts, hasOpts := strings.Cut(rest, ",")
	if filepath.IsAbs(plugin) {
		return config
	}
	if _, set := os.LookupEnv(pjrtPathEnv); set {
		return config
	}
	want := plugin
	if want == "" {
		want = "cpu"
	}
	path, ok := FindXLAPlugin(want)
	if !ok {
		return config
	}
	out := name + ":" + path
	if hasOpts {
		out += "," + opts
	}
	return out
}

// XLAFlagsEnv is the environment variable through which XLA reads its compiler options.
const XLAFlagsEnv = "XLA_FLAGS"

// XLACPUOptimizationLevel is the optimisation level that eccco asks of XLA's CPU compiler
// (--xla_backend_optimization_level, LLVM's -O level; XLA's own default is 2), unless XLA_FLAGS already sets
// one. The benchmark compiles dozens of small graphs per model, each once (models.Graphs), and at level 2
// most of their XLA time goes to LLVM; level 1 gives the same results up to float32 rounding (the
// timings and the comparison are in bench/results.md).
const XLACPUOptimizationLevel = 1

// xlaOptLevelFlag is the XLA flag that XLACPUOptimizationLevel sets.
const xlaOptLevelFlag = "--xla_backend_optimization_level"

// XLACPUYNNFusionTypes is what eccco asks of XLA's CPU compiler for its YNNPACK fusions
// (--xla_cpu_experimental_ynn_fusion_type), unless XLA_FLAGS already names that flag: only single matrix
// products go to YNNPACK, every elementwise operation and reduction stays in XLA's own vectorised loops.
// XLA's default also hands YNNPACK fusions of elementwise operations around the products, and there
// YNNPACK computes the L1 term's sign (the gradient of |x′ − x|) one float at a time; with no YNNPACK at all
// (an empty list) the products are slower. Values within float32 rounding of the default's; the timings at
// B = 100, 1,000 and 10,000 are in bench/README.md.
const XLACPUYNNFusionTypes = "individual_dot"

// xlaYNNFusionFlag is the XLA flag that XLACPUYNNFusionTypes sets.
const xlaYNNFusionFlag = "--xla_cpu_experimental_ynn_fusion_type"

// xlaCPUFlags returns XLA_FLAGS as eccco sets it before starting XLA's CPU plugin (config: the resolved
// backend configuration, "xla:cpu" or "xla:/path/pjrt_c_api_cpu_plugin.so"): flags with
// XLACPUOptimizationLevel and XLACPUYNNFusionTypes added, each unless the flags name it already, and
// whether it added any; flags unchanged (and false) for other plugins (CUDA).
func xlaCPUFlags(config, flags string) (string, bool) {
	_, rest, _ := strings.Cut(config, ":")
	plugin, _, _ := strings.Cut(rest, ",")
	base := filepath.Base(plugin)
	if !(plugin == "" || plugin == "cpu" || strings.HasPrefix(base, "pjrt_c_api_cpu_plugin.")) {
		return flags, false
	}
	out := strings.TrimSpace(flags)
	for _, f := range [...]struct{ name, value string }{
		{xlaOptLevelFlag, strconv.Itoa(XLACPUOptimizationLevel)},
		{xlaYNNFusionFlag, XLACPUYNNFusionTypes},
	} {
		if !strings.Contains(flags, strings.TrimPrefix(f.name, "--")) {
			out = strings.TrimSpace(out + " " + f.name + "=" + f.value)
		}
	}
	if out == strings.TrimSpace(flags) {
		return flags, false
	}
	return out, true
}

// setXLACPUFlags sets XLA_FLAGS for the CPU plugin (xlaCPUFlags) before it starts; XLA reads them once per
// process, when the plugin compiles its first graph.
func setXLACPUFlags(config string) {
	if flags, changed := xlaCPUFlags(config, os.Getenv(XLAFlagsEnv)); changed {
		os.Setenv(XLAFlagsEnv, flags)
	}
}

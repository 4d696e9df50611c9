package backend

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // registers the pure-Go backend "go".
)

// Default is the configuration used when GOMLX_BACKEND is unset: the embedded pure-Go backend with its
// sequential executor (one op at a time; large ops are still parallelised internally).
//
// Plain "go" (the parallel executor) is not the default: with compute v0.1.5 it deadlocked when several
// large matrix products ran at once (a lost wake-up in workerspool.Pool.Saturate; predicting 10,000 MNIST
// images with a 5-member ensemble hung), with compute v0.1.14 it deadlocks on a While body holding a large
// Transpose (its executors hold every worker), and it is slower on eccco's small graphs (bench/results.md).
const Default = "go:ops_sequential"

// EnvVar is the environment variable that selects the backend (GoMLX's own convention).
const EnvVar = compute.ConfigEnvVar

// IsXLA reports whether b is GoMLX's XLA backend, by the name it reports (compute.Backend.Name). Graph
// code asks it where the two backends want different forms of the same values: XLA fuses element-wise
// work and compiles its own convolutions, while the pure-Go backend runs one op at a time.
func IsXLA(b compute.Backend) bool { return b.Name() == "xla" }

// Available lists the backend names compiled into this binary, sorted ("go", plus "xla" when built with
// -tags xla).
func Available() []string {
	names := compute.List()
	slices.Sort(names)
	return names
}

// Config returns the backend configuration that New would use: GOMLX_BACKEND if set and non-empty,
// otherwise Default.
func Config() string {
	if c := strings.TrimSpace(os.Getenv(EnvVar)); c != "" {
		return c
	}
	return Default
}

// New creates the backend named by GOMLX_BACKEND, or the pure-Go backend when it is unset.
func New() (compute.Backend, error) {
	return NewWithConfig(Config())
}

// NewWithConfig creates a backend from a configuration string "<name>[:<options>]", e.g. "go",
// "go:ops_sequential" or "xla:cpu". Unknown or unavailable backends are reported as errors.
func NewWithConfig(config string) (b compute.Backend, err error) {
	name, _, _ := strings.Cut(config, ":")
	if !slices.Contains(compute.List(), name) {
		return nil, unavailableError(config, name)
	}
	requested := config
	if xlaResolve != nil && xlaAliases[name] {
		// Built with -tags xla: find the plugin (e.g. in the project's .xla/ folder) and pass its absolute path.
		config = xlaResolve(config)
		setXLACPUFlags(config)
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("starting GoMLX backend %q: %v", config, r)
		}
	}()
	b, err = compute.NewWithConfig(config)
	if err != nil {
		if xlaAliases[name] && !strings.Contains(config, "/") && !strings.Contains(config, `\`) {
			// No plugin path was found for it: say how to install one.
			return nil, fmt.Errorf("starting GoMLX backend %q: %w. %s", requested, err, xlaInstallHint)
		}
		return nil, fmt.Errorf("starting GoMLX backend %q: %w", requested, err)
	}
	return b, nil
}

// xlaAliases are the names under which go-xla registers its backend.
var xlaAliases = map[string]bool{"xla": true, "stablehlo": true, "hlo": true, "shlo": true}

// xlaResolve is set by xla.go when the binary is built with -tags xla; nil otherwise.
var xlaResolve func(config string) string

// xlaInstallHint tells how to get a PJRT plugin without any download at run time.
const xlaInstallHint = "XLA never downloads plugins at run time in eccco: install the pinned CPU plugin with " +
	"scripts/install-xla.sh (into .xla/ of the repository, found from the working directory or its parents, or " +
	"set " + XLADirEnv + "), scripts/install-xla-cuda.sh for CUDA, or point PJRT_PLUGIN_LIBRARY_PATH at a " +
	"folder holding pjrt_c_api_<name>_plugin.so"

func unavailableError(config, name string) error {
	msg := fmt.Sprintf("GoMLX backend %q (from %s=%q) is not available in this build; available: %s",
		name, EnvVar, config, strings.Join(Available(), ", "))
	if name == "xla" {
		msg += ". To enable XLA, rebuild with `go build -tags xla` (needs cgo) and install the PJRT plugin for your " +
			"device (scripts/install-xla.sh for the CPU; see `go doc ./eccco/backend`), or unset " + EnvVar +
			" to use the pure-Go backend"
	} else {
		msg += ". Unset " + EnvVar + " to use the pure-Go backend"
	}
	return fmt.Errorf("%s", msg)
}

var (
	sharedOnce sync.Once
	shared     compute.Backend
	sharedErr  error
)

// Shared returns one process-wide backend created by New on first use. Backends hold worker pools and
// compiled graphs, so programs should create one and reuse it; Shared does that for them.
func Shared() (compute.Backend, error) {
	sharedOnce.Do(func() { shared, sharedErr = New() })
	return shared, sharedErr
}

var (
	namedMu sync.Mutex
	named   = map[string]compute.Backend{}
)

// Named returns one process-wide backend per configuration, created by NewWithConfig on first use (a
// failure is returned, not kept); GOMLX_BACKEND's own configuration (Config) gives Shared's. It serves the
// backends chosen beside GOMLX_BACKEND's, such as the image data sets' (ImagesConfig).
func Named(config string) (compute.Backend, error) {
	if config == Config() {
		return Shared()
	}
	namedMu.Lock()
	defer namedMu.Unlock()
	if b, ok := named[config]; ok {
		return b, nil
	}
	if name, _, _ := strings.Cut(config, ":"); !slices.Contains(Available(), name) {
		return nil, fmt.Errorf("backend %q is not compiled into this binary (it has: %s); for XLA build with `go build -tags xla` (cgo) and install its plugin with scripts/install-xla.sh",
			config, strings.Join(Available(), ", "))
	}
	b, err := NewWithConfig(config)
	if err != nil {
		return nil, err
	}
	named[config] = b
	return b, nil
}

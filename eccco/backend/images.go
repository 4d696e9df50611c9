package backend

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gomlx/compute"
)

// ImagesEnvVar chooses the backend of the image data sets (MNIST, Fashion-MNIST) where eccco chooses it
// itself (./reproduce.sh, the notebooks): "auto" or unset (see ImagesConfig), "go" (the default backend,
// as every other data set), or a configuration such as "xla:cpu".
const ImagesEnvVar = "ECCCO_IMAGE_BACKEND"

// ImagesConfig returns the backend configuration for the image data sets (XLA's CPU plugin where it can run;
// bench/README.md compares the backends on them), and why, in a few words:
//
//   - ECCCO_IMAGE_BACKEND set to a configuration: that configuration;
//   - "go" (or "none", as reproduce.sh accepts it): "" (the default backend);
//   - "auto" or unset: "xla:cpu" when XLA is compiled into this binary (-tags xla), GOMLX_BACKEND is unset
//     and the project's CPU plugin is installed (FindXLAPlugin; scripts/install-xla.sh puts it there),
//     else "" (the default backend).
//
// It reads the environment, the binary and the disk only: it creates no backend, loads no plugin and
// never downloads.
func ImagesConfig() (config, why string) {
	switch v := strings.TrimSpace(os.Getenv(ImagesEnvVar)); v {
	case "", "auto":
	case "go", "none":
		return "", ImagesEnvVar + "=" + v
	default:
		return v, ImagesEnvVar + "=" + v
	}
	if c := strings.TrimSpace(os.Getenv(EnvVar)); c != "" {
		return "", EnvVar + "=" + c + " runs every data set"
	}
	if !slices.Contains(Available(), "xla") {
		return "", "XLA is not compiled in (build with -tags xla)"
	}
	if _, ok := FindXLAPlugin("cpu"); !ok {
		return "", "XLA's CPU plugin is not installed (scripts/install-xla.sh)"
	}
	return "xla:cpu", "XLA is compiled in and its CPU plugin installed"
}

// Images returns the backend of a user's images (explain-onnx and score with an image schema) by
// ImagesConfig's rule, and a line saying which and why: XLA's CPU plugin where it is compiled in and
// installed, else the default backend (New's, Shared). A configuration that ECCCO_IMAGE_BACKEND names and
// that does not start is an error; XLA chosen by "auto" that does not start leaves the default backend,
// and the line says why.
func Images() (b compute.Backend, line string, err error) {
	config, why := ImagesConfig()
	if config != "" {
		if b, err = Named(config); err == nil {
			return b, fmt.Sprintf("images run on %s (%s)", config, why), nil
		}
		if v := strings.TrimSpace(os.Getenv(ImagesEnvVar)); v != "" && v != "auto" {
			return nil, "", fmt.Errorf("%s=%s: %w", ImagesEnvVar, v, err)
		}
		why = fmt.Sprintf("%s did not start: %v", config, err)
	}
	if b, err = Shared(); err != nil {
		return nil, "", err
	}
	return b, fmt.Sprintf("images run on %s (%s)", describe(Config()), why), nil
}

// describe names a backend configuration for people: "pure Go (go:ops_sequential)" for the default.
func describe(config string) string {
	if name, _, _ := strings.Cut(config, ":"); name == "go" {
		return "pure Go (" + config + ")"
	}
	return config
}

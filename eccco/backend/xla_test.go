//go:build xla

package backend

import (
	"context"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	goxla "github.com/gomlx/go-xla/compute/xla"
	// The installer eccco never registers: registered here so that the "on" helper can try a download and
	// the "off" one checks that eccco's switch keeps it from doing so.
	_ "github.com/gomlx/go-xla/compute/xla/autoinstall"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph code reads best with a dot import.
	"github.com/gomlx/gomlx/core/tensors"
)

// helperEnv makes the test binary, run again by runHelper, create an XLA backend and report what happened
// instead of running tests: "off" as eccco ships it, "on" with go-xla's auto-install forced back on (to
// check that the test below would see an install attempt).
const helperEnv = "ECCCO_BACKEND_TEST_XLA_HELPER"

func TestXLAHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("helper for TestXLANeverDownloads, not a test by itself")
	}
	if mode == "on" {
		goxla.EnableAutoInstall(true)
	}
	b, err := NewWithConfig("xla:cpu")
	if err == nil {
		b.Finalize()
		t.Fatal("HELPER: xla:cpu started, but no plugin was reachable")
	}
	t.Logf("HELPER-ERROR: %v", err)
}

// runHelper runs TestXLAHelperProcess in a fresh process whose HOME, caches and temporary folder are empty
// folders of its own, go-xla's plugin search path an empty folder, the working directory has no .xla, and
// any HTTP(S) request goes to a closed local port. It returns the output and every file left behind.
func runHelper(t *testing.T, mode string) (output string, created []string, elapsed time.Duration) {
	t.Helper()
	root := t.TempDir()
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, k := range []string{"HOME=", "XDG_CACHE_HOME=", "TMPDIR=", "PJRT_PLUGIN_LIBRARY_PATH=",
			"GOMLX_NO_AUTO_INSTALL=", XLADirEnv + "=", EnvVar + "=", helperEnv + "=",
			"HTTP_PROXY=", "HTTPS_PROXY=", "NO_PROXY=", "http_proxy=", "https_proxy=", "no_proxy="} {
			if strings.HasPrefix(kv, k) {
				return true
			}
		}
		return false
	})
	dirs := map[string]string{"HOME": "home", "XDG_CACHE_HOME": "cache", "TMPDIR": "tmp",
		"PJRT_PLUGIN_LIBRARY_PATH": "plugins", "work": "work"}
	var made []string
	for k, d := range dirs {
		made = append(made, d)
		p := filepath.Join(root, d)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if k != "work" {
			env = append(env, k+"="+p)
		}
	}
	env = append(env, helperEnv+"="+mode, "HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestXLAHelperProcess$", "-test.v", "-test.count=1")
	cmd.Env = env
	cmd.Dir = filepath.Join(root, "work")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	elapsed = time.Since(start)
	if err != nil {
		t.Fatalf("helper process (%s): %v\n%s", mode, err, out)
	}
	_ = filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, path)
		if err == nil && rel != "." && !slices.Contains(made, rel) {
			created = append(created, rel)
		}
		return nil
	})
	return string(out), created, elapsed
}

// TestXLANeverDownloads: with no plugin anywhere, GOMLX_BACKEND=xla:cpu fails at once with an error that says
// how to install one, and nothing is written to HOME, the caches or the temporary folder (go-xla's installer
// would create ~/.local/lib/go-xla and a lock file there before downloading). GOMLX_NO_AUTO_INSTALL is unset,
// as for a user who never heard of it.
func TestXLANeverDownloads(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again")
	}
	out, created, elapsed := runHelper(t, "off")
	if !strings.Contains(out, "HELPER-ERROR") {
		t.Fatalf("helper did not report an error:\n%s", out)
	}
	for _, want := range []string{"xla:cpu", "scripts/install-xla.sh", "never downloads"} {
		if !strings.Contains(out, want) {
			t.Errorf("error does not mention %q:\n%s", want, out)
		}
	}
	if len(created) > 0 {
		t.Errorf("creating an XLA backend without a plugin wrote %v", created)
	}
	if elapsed > 30*time.Second {
		t.Errorf("failing took %v, want a quick error", elapsed)
	}

	// The same check sees an install attempt when auto-install is on (the request fails: it is sent to a
	// closed local port), so an empty folder above means none was made.
	out, created, _ = runHelper(t, "on")
	if len(created) == 0 {
		t.Errorf("with go-xla's auto-install forced on, the helper left no trace; the check above proves "+
			"nothing:\n%s", out)
	}
}

// TestXLARunsAGraph runs a small graph and its gradient on XLA when GOMLX_BACKEND names it (and a plugin is
// installed); it skips otherwise.
func TestXLARunsAGraph(t *testing.T) {
	cfg := Config()
	if name, _, _ := strings.Cut(cfg, ":"); !xlaAliases[name] {
		t.Skipf("%s=%q does not select XLA", EnvVar, cfg)
	}
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	t.Logf("backend: %s", b.Description())
	exec, err := NewExec(b, func(x *Node) []*Node {
		y := ReduceAllSum(Mul(Exp(x), x))
		return []*Node{y, Gradient(y, x)[0]}
	})
	if err != nil {
		t.Fatal(err)
	}
	xs := []float64{-1, 0, 0.5, 2}
	outs, err := exec.Call(tensors.FromValue(xs))
	if err != nil {
		t.Fatal(err)
	}
	var wantY float64
	for _, x := range xs {
		wantY += math.Exp(x) * x
	}
	if got := tensors.MustCopyFlatData[float64](outs[0])[0]; math.Abs(got-wantY) > 1e-12*math.Abs(wantY) {
		t.Errorf("sum(x·exp(x)) = %v, want %v", got, wantY)
	}
	for i, g := range tensors.MustCopyFlatData[float64](outs[1]) {
		if want := math.Exp(xs[i]) * (1 + xs[i]); math.Abs(g-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("gradient[%d] = %v, want %v", i, g, want)
		}
	}
}

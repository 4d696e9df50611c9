package notebook

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/backend"
	"github.com/eccco-go/eccco-go/eccco/compare"
)

func TestRelative(t *testing.T) {
	for _, c := range []struct{ in, root, want string }{
		{"mnist mlp: loaded /home/u/eccco-go/runs/quick/models/mnist/mlp", "/home/u/eccco-go", "mnist mlp: loaded runs/quick/models/mnist/mlp"},
		{"data in /home/u/eccco-go", "/home/u/eccco-go", "data in ."},
		{"no path here", "/home/u/eccco-go", "no path here"},
		{"/x/y", "", "/x/y"},
	} {
		if got := Relative(c.in, c.root); got != c.want {
			t.Errorf("Relative(%q, %q) = %q, want %q", c.in, c.root, got, c.want)
		}
	}
}

// Beside counts a cell within when |ours − paper| ≤ max(3·sd, 0.015): 0.50 vs 0.51 (sd 0) is within by the
// rounding floor, 0.50 vs 0.60 (sd 0.01) is not.
func TestBeside(t *testing.T) {
	ours := []compare.Cell{
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "unfaithfulness", Mean: 0.50, SD: 0, Runs: 50},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "unfaithfulness", Mean: 0.50, SD: 0, Runs: 50},
	}
	pub := []compare.Published{
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "ECCCo", Metric: "unfaithfulness", Mean: 0.51, SD: 0},
		{Dataset: "moons", Subset: "all", Model: "MLP", Generator: "Wachter", Metric: "unfaithfulness", Mean: 0.60, SD: 0.01},
	}
	md := Beside(compare.Compare(ours, pub), "moons", "unfaithfulness")
	if !strings.Contains(md, "**1 of 2** cells within") {
		t.Errorf("Beside: want 1 of 2 within, got:\n%s", md)
	}
	cells := BesideCells(ours, pub, "moons", "unfaithfulness")
	if len(cells) != 4 || cells[0].Model != "MLP (ours)" || cells[1].Model != "MLP (paper)" || math.Abs(cells[1].Mean-0.51) > 1e-12 {
		t.Errorf("BesideCells = %+v", cells)
	}
	claims := Claims(ours, pub, "moons", []string{"MLP"})
	// Ours: ECCCo (0.50) is not more faithful than Wachter (0.50); the paper's: 0.51 against 0.60 over 50
	// runs, sd floored at 0.005, is significant and 15 % of the metric: it is.
	if !strings.Contains(claims, "| MLP | ECCCo more faithful than Wachter | **does not hold**: too small or not significant | holds |") {
		t.Errorf("Claims:\n%s", claims)
	}
}

// Outside a notebook Printf, Print and Println write to standard output what fmt's functions of the same
// name would.
func TestPrintOutsideNotebook(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	Printf("q̂ = %.2f\n", 0.8095)
	Print("a", 1, 2, "b")
	Println("x", 3)
	os.Stdout = saved
	w.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := "q̂ = 0.81\na1 2bx 3\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The full settings run the image sets on backend.ImagesConfig's backend; the quick ones keep the default.
func TestOptionsImageBackend(t *testing.T) {
	t.Setenv(QuickEnv, "")
	t.Setenv(backend.EnvVar, "")
	t.Setenv(backend.ImagesEnvVar, "go:ops_parallel") // any configuration other than the default
	full := Options(true)
	want, err := backend.Named("go:ops_parallel")
	if err != nil {
		t.Fatal(err)
	}
	if full.ImageBackend != want {
		t.Errorf("full settings: ImageBackend %v, want the %s backend", full.ImageBackend, "go:ops_parallel")
	}
	if q := Options(false); q.ImageBackend != nil {
		t.Errorf("quick settings: ImageBackend %v, want nil (the default backend)", q.ImageBackend)
	}
	t.Setenv(QuickEnv, "1")
	if q := AuthorsOptions(true); q.ImageBackend != nil {
		t.Errorf("ECCCO_QUICK=1: ImageBackend %v, want nil", q.ImageBackend)
	}
	t.Setenv(QuickEnv, "")
	t.Setenv(backend.ImagesEnvVar, "go")
	if o := Options(true); o.ImageBackend != nil {
		t.Errorf("%s=go: ImageBackend %v, want nil", backend.ImagesEnvVar, o.ImageBackend)
	}
	t.Setenv(backend.ImagesEnvVar, "nosuchbackend")
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "nosuchbackend") {
				t.Errorf("a backend named by %s that is not compiled in: recovered %v, want the cell stopped with an error naming it", backend.ImagesEnvVar, r)
			}
		}()
		Options(true)
	}()
}

// TestQuickEnv checks the three settings of ECCCO_QUICK: 1 forces the quick settings, 0 the full ones,
// anything else leaves the notebook's own choice.
func TestQuickEnv(t *testing.T) {
	for _, c := range []struct {
		env        string
		full, want bool
	}{{"1", true, true}, {"1", false, true}, {"0", false, false}, {"0", true, false}, {"", false, true}, {"", true, false}, {"yes", true, false}} {
		t.Setenv(QuickEnv, c.env)
		if got := Quick(c.full); got != c.want {
			t.Errorf("ECCCO_QUICK=%q, full %v: Quick %v, want %v", c.env, c.full, got, c.want)
		}
	}
}

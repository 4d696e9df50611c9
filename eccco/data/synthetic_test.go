package data

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// meanSD returns the mean and sample standard deviation of v.
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// column returns feature j of the rows of class k (k < 0: all rows).
func column(d *Dataset, j, k int) []float64 {
	var out []float64
	for i := range d.N() {
		if k < 0 || d.Y[i] == k {
			out = append(out, float64(d.Row(i)[j]))
		}
	}
	return out
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.5f, want %.5f ± %.5f", what, got, want, tol)
	}
}

func TestSyntheticSizesAndClassBalance(t *testing.T) {
	// MLJBase gives class 0 floor(n/2) points and class 1 the rest.
	for _, tc := range []struct {
		name   string
		n      int
		counts []int
	}{
		{"linearly-separable", 1250, []int{625, 625}},
		{"moons", 3125, []int{1562, 1563}},
		{"circles", 1250, []int{625, 625}},
	} {
		d, err := generate(tc.name, tc.n, NewRand(7))
		if err != nil {
			t.Fatal(err)
		}
		if d.N() != tc.n || d.D() != 2 || d.K() != 2 || d.Name != tc.name {
			t.Errorf("%s: N=%d D=%d K=%d name=%q", tc.name, d.N(), d.D(), d.K(), d.Name)
		}
		if got := d.ClassCounts(); !reflect.DeepEqual(got, tc.counts) {
			t.Errorf("%s: class counts %v, want %v", tc.name, got, tc.counts)
		}
		if err := d.Validate(); err != nil {
			t.Error(err)
		}
		// Rows are shuffled: the first half is not all class 0.
		if c := (&Dataset{Y: d.Y[:tc.n/2], ClassNames: d.ClassNames}).ClassCounts(); c[1] == 0 {
			t.Errorf("%s: rows are not shuffled", tc.name)
		}
	}
}

func TestMoonsGeometry(t *testing.T) {
	d, err := Moons(3125, 0.1, NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	x := column(d, 0, -1)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	// Noise-free x spans [-1, 2]; with noise sd 0.1 the extremes sit about 0.3 further out at most.
	if lo < -1.45 || lo > -0.9 || hi > 2.45 || hi < 1.9 {
		t.Errorf("x range [%.3f, %.3f], want about [-1.3, 2.3]", lo, hi)
	}
	// For θ ~ U(0, π): E[cos θ] = 0 and E[sin θ] = 2/π. Upper moon (class 0) = (cos θ, sin θ), lower moon
	// (class 1) = (1 − cos θ, 0.3 − sin θ).
	tol := 0.03
	m, _ := meanSD(column(d, 0, 0))
	near(t, "mean x of class 0", m, 0, tol)
	m, _ = meanSD(column(d, 1, 0))
	near(t, "mean y of class 0", m, 2/math.Pi, tol)
	m, _ = meanSD(column(d, 0, 1))
	near(t, "mean x of class 1", m, 1, tol)
	m, _ = meanSD(column(d, 1, 1))
	near(t, "mean y of class 1", m, 0.3-2/math.Pi, tol)
	// Distances to the moons' centres are 1 plus noise (radial noise sd ≈ 0.1).
	for k, c := range [][2]float64{{0, 0}, {1, 0.3}} {
		var r []float64
		for i := range d.N() {
			if d.Y[i] == k {
				p := d.Row(i)
				r = append(r, math.Hypot(float64(p[0])-c[0], float64(p[1])-c[1]))
			}
		}
		m, sd := meanSD(r)
		near(t, "mean radius of class "+d.ClassNames[k], m, 1, 0.02)
		near(t, "sd of the radius of class "+d.ClassNames[k], sd, 0.1, 0.015)
	}
}

func TestCirclesRadii(t *testing.T) {
	d, err := Circles(1250, 0.05, 0.5, NewRand(2))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []float64{0.5, 1} { // class 0 is the inner circle
		var r []float64
		for i := range d.N() {
			if d.Y[i] == k {
				p := d.Row(i)
				r = append(r, math.Hypot(float64(p[0]), float64(p[1])))
			}
		}
		m, sd := meanSD(r)
		near(t, "mean radius of class "+d.ClassNames[k], m, want, 0.01)
		near(t, "sd of the radius of class "+d.ClassNames[k], sd, 0.05, 0.008)
		// Angles are uniform on (0, 2π): both coordinates average 0.
		mx, _ := meanSD(column(d, 0, k))
		my, _ := meanSD(column(d, 1, k))
		near(t, "mean x", mx, 0, 0.06*want+0.01)
		near(t, "mean y", my, 0, 0.06*want+0.01)
	}
}

func TestLinearlySeparableBlobs(t *testing.T) {
	for seed := range uint64(5) {
		d, err := LinearlySeparable(1250, NewRand(seed))
		if err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			for j := range 2 {
				m, sd := meanSD(column(d, j, k))
				if m < -1.02 || m > 1.02 {
					t.Errorf("seed %d: centre of blob %d, coordinate %d = %.3f outside [-1, 1]", seed, k, j, m)
				}
				near(t, "blob sd", sd, 0.1, 0.012)
			}
		}
	}
}

func TestSyntheticSplitsAndDeterminism(t *testing.T) {
	for _, tc := range []struct {
		name             string
		train, testPerCl int
	}{
		{"linearly-separable", 1000, 125},
		{"moons", 2501, 312},
		{"circles", 1000, 125},
	} {
		s, err := Load(tc.name, Options{Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		if s.Train.N() != tc.train {
			t.Errorf("%s: %d training rows, want %d", tc.name, s.Train.N(), tc.train)
		}
		if got := s.Test.ClassCounts(); !reflect.DeepEqual(got, []int{tc.testPerCl, tc.testPerCl}) {
			t.Errorf("%s: test class counts %v, want %d each", tc.name, got, tc.testPerCl)
		}
		if s.Standardizer != nil {
			t.Errorf("%s: synthetic data must not be standardised", tc.name)
		}
		checkBoundsAreTrainMinMax(t, s)
		again, err := Load(tc.name, Options{Seed: 42})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s, again) {
			t.Errorf("%s: same seed gave different splits", tc.name)
		}
		other, err := Load(tc.name, Options{Seed: 43})
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(s.Train.X, other.Train.X) {
			t.Errorf("%s: different seeds gave identical training data", tc.name)
		}
	}
	s, err := Load("moons", Options{N: 100})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Train.N() + s.Test.N(); n != 100 {
		t.Errorf("Options.N = 100 gave %d rows", n)
	}
}

// checkBoundsAreTrainMinMax checks Split.Lower/Upper against a direct computation.
func checkBoundsAreTrainMinMax(t *testing.T, s *Split) {
	t.Helper()
	D := s.Train.D()
	if len(s.Lower) != D || len(s.Upper) != D {
		t.Fatalf("bounds have %d/%d entries, want %d", len(s.Lower), len(s.Upper), D)
	}
	for j := range D {
		lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
		for i := range s.Train.N() {
			v := s.Train.X[i*D+j]
			lo, hi = min(lo, v), max(hi, v)
		}
		if s.Lower[j] != lo || s.Upper[j] != hi {
			t.Fatalf("feature %d: bounds [%v, %v], training min/max [%v, %v]", j, s.Lower[j], s.Upper[j], lo, hi)
		}
	}
}

func TestSyntheticBadArguments(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(LinearlySeparable(1, NewRand(0))), "at least 2 points"},
		{second(LinearlySeparable(10, nil)), "nil random source"},
		{second(Moons(10, -0.1, NewRand(0))), "noise must be"},
		{second(Moons(10, math.NaN(), NewRand(0))), "noise must be"},
		{second(Circles(10, 0.1, 1.5, NewRand(0))), "factor must lie"},
		{second(Circles(10, 0.1, 0, NewRand(0))), "factor must lie"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want one containing %q", tc.err, tc.want)
		}
		if !errors.Is(tc.err, ErrInvalidOption) {
			t.Errorf("error %v does not wrap ErrInvalidOption", tc.err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

package data

import (
	"errors"
	"math"
	"testing"
)

// The Julia RNG replays Julia's own documented draws: the Xoshiro docstring (stdlib/Random/src/Xoshiro.jl)
// shows rand(Xoshiro(1234), 2) = [0.32597672886359486, 0.5490511363155669]; Xoshiro(1234) is seeded as
// Random.seed!(1234) seeds the task's generator.
func TestJuliaRNGDocstring(t *testing.T) {
	r := newJuliaRNG(1234)
	for _, want := range []float64{0.32597672886359486, 0.5490511363155669} {
		if got := r.float64(); got != want {
			t.Errorf("rand(Xoshiro(1234)) = %v, want %v", got, want)
		}
	}
}

// randperm is a permutation; randn's draws have mean ≈ 0 and variance ≈ 1 (100,000 draws: |mean| < 0.02,
// |var − 1| < 0.02, 5 sd of each estimate), and rand(a:b) stays in its range.
func TestJuliaRNGDistributions(t *testing.T) {
	r := newJuliaRNG(7)
	p := r.randperm(1000)
	seen := make([]bool, 1001)
	for _, v := range p {
		if v < 1 || v > 1000 || seen[v] {
			t.Fatalf("randperm(1000) is not a permutation: %d", v)
		}
		seen[v] = true
	}
	const n = 100000
	var s, s2 float64
	for range n {
		x := r.normFloat64()
		s += x
		s2 += x * x
	}
	mean, v := s/n, s2/n-(s/n)*(s/n)
	if math.Abs(mean) > 0.02 || math.Abs(v-1) > 0.02 {
		t.Errorf("randn: mean %.4f, variance %.4f", mean, v)
	}
	for range 1000 {
		if x := r.intIn(3, 9); x < 3 || x > 9 {
			t.Fatalf("rand(3:9) = %d", x)
		}
	}
}

// The authors' split has their sizes (1,000 training rows, 125 test rows per class) and row 625 of
// make_blobs, moved by both centres, carries the first blob's label beside the second blob.
func TestAuthorsLinearlySeparableShape(t *testing.T) {
	train, test := AuthorsLinearlySeparable()
	if train.N() != 1000 || test.N() != 250 {
		t.Fatalf("%d train, %d test rows, want 1000 and 250", train.N(), test.N())
	}
	if c := test.ClassCounts(); c[0] != 125 || c[1] != 125 {
		t.Errorf("test classes %v, want 125 each", c)
	}
	if err := train.Validate(); err != nil {
		t.Fatal(err)
	}
	split, err := Load("linearly-separable", Options{AuthorsDraw: true, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if split.Train.Row(0)[0] != train.Row(0)[0] || split.Test.N() != 250 {
		t.Error("Load with AuthorsDraw is not AuthorsLinearlySeparable")
	}
	if _, err := Load("linearly-separable", Options{AuthorsDraw: true, N: 500}); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("AuthorsDraw with 500 points: err = %v, want ErrInvalidOption (the authors drew 1,250)", err)
	}
}

// The ziggurat tables agree with the literals of Julia's stdlib/Random/src/normal.jl (1-based there) to
// 10⁻¹³ relative: ki[1], ki[3], ki[256], wi[1], wi[2], wi[3]; and ki[2] is 0.
func TestZigguratTablesMatchJulia(t *testing.T) {
	ki := []struct {
		i    int
		want uint64
	}{{0, 0x0007799ec012f7b2}, {2, 0x0006045f4c7de363}, {255, 0x00078d2d25998e24}}
	for _, c := range ki {
		if d := math.Abs(float64(zigKi[c.i])-float64(c.want)) / float64(c.want); d > 1e-13 {
			t.Errorf("ki[%d] = %#x, Julia %#x (relative %.2g)", c.i+1, zigKi[c.i], c.want, d)
		}
	}
	if zigKi[1] != 0 {
		t.Errorf("ki[2] = %#x, want 0", zigKi[1])
	}
	for i, want := range []float64{1.7367254121602630e-15, 9.5586603514556339e-17, 1.2708704834810623e-16} {
		if d := math.Abs(zigWi[i]-want) / want; d > 1e-13 {
			t.Errorf("wi[%d] = %v, Julia %v (relative %.2g)", i+1, zigWi[i], want, d)
		}
	}
}

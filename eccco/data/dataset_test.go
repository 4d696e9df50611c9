package data

import (
	"errors"
	"reflect"
	"testing"
)

// smallDataset has 5 rows of class 0 and 3 of class 1; feature i is the row number, so rows are easy to
// trace.
func smallDataset() *Dataset {
	d := &Dataset{Name: "small", FeatureNames: []string{"i"}, ClassNames: []string{"a", "b"}}
	for i, y := range []int{0, 0, 1, 0, 1, 0, 1, 0} {
		d.X = append(d.X, float32(i))
		d.Y = append(d.Y, y)
	}
	return d
}

func TestBalancedSplitArguments(t *testing.T) {
	d := smallDataset()
	train, test, err := d.BalancedSplit(2, NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(test.ClassCounts(), []int{2, 2}) || !reflect.DeepEqual(train.ClassCounts(), []int{3, 1}) {
		t.Errorf("split of 5/3 rows with 2 test rows per class: train %v, test %v", train.ClassCounts(), test.ClassCounts())
	}
	// Zero test rows per class: everything is training data.
	train, test, err = d.BalancedSplit(0, NewRand(1))
	if err != nil || test.N() != 0 || !reflect.DeepEqual(train.X, d.X) {
		t.Errorf("BalancedSplit(0) = %d training rows, %d test rows, %v", train.N(), test.N(), err)
	}
	// More test rows than class b has: an error, but not an invalid option.
	if _, _, err := d.BalancedSplit(4, NewRand(1)); err == nil || errors.Is(err, ErrInvalidOption) {
		t.Errorf("BalancedSplit(4) with 3 rows of class b: %v", err)
	} else {
		wantErr(t, err, `class "b" has 3 rows, need 4`)
	}
	bad := smallDataset()
	bad.Y[3] = 2
	for _, tc := range []struct {
		what string
		d    *Dataset
		n    int
		rng  bool
		want string
	}{
		{"negative size", d, -1, true, "-1 test rows per class is negative"},
		{"nil rng", d, 1, false, "nil random source"},
		{"label out of range", bad, 1, true, "row 3 has label 2 outside [0, 2)"},
	} {
		rng := NewRand(1)
		if !tc.rng {
			rng = nil
		}
		_, _, err := tc.d.BalancedSplit(tc.n, rng)
		if !errors.Is(err, ErrInvalidOption) {
			t.Errorf("%s: %v; want ErrInvalidOption", tc.what, err)
			continue
		}
		wantErr(t, err, tc.want)
	}
}

func TestSamplePerClassArguments(t *testing.T) {
	d := smallDataset()
	for _, repl := range []bool{false, true} {
		s, err := d.SamplePerClass(3, repl, NewRand(2))
		if err != nil {
			t.Fatal(err)
		}
		// Grouped by class: three rows of class a, then three of class b.
		if !reflect.DeepEqual(s.Y, []int{0, 0, 0, 1, 1, 1}) {
			t.Errorf("with replacement %v: labels %v", repl, s.Y)
		}
		for i, y := range s.Y {
			if src := int(s.X[i]); d.Y[src] != y {
				t.Errorf("with replacement %v: row %d comes from row %d of class %d, labelled %d", repl, i, src, d.Y[src], y)
			}
		}
	}
	if _, err := d.SamplePerClass(4, false, NewRand(2)); err == nil || errors.Is(err, ErrInvalidOption) {
		t.Errorf("4 rows of class b without replacement: %v", err)
	}
	if s, err := d.SamplePerClass(4, true, NewRand(2)); err != nil || s.N() != 8 {
		t.Errorf("4 rows per class with replacement: %v", err)
	}
	bad := smallDataset()
	bad.Y[0] = -1
	for _, tc := range []struct {
		what string
		d    *Dataset
		n    int
		rng  bool
		want string
	}{
		{"zero rows", d, 0, true, "0 rows per class, need at least 1"},
		{"negative rows", d, -2, true, "-2 rows per class"},
		{"nil rng", d, 1, false, "nil random source"},
		{"label out of range", bad, 1, true, "row 0 has label -1 outside [0, 2)"},
	} {
		rng := NewRand(1)
		if !tc.rng {
			rng = nil
		}
		for _, repl := range []bool{false, true} {
			_, err := tc.d.SamplePerClass(tc.n, repl, rng)
			if !errors.Is(err, ErrInvalidOption) {
				t.Errorf("%s (with replacement %v): %v; want ErrInvalidOption", tc.what, repl, err)
				continue
			}
			wantErr(t, err, tc.want)
		}
	}
}

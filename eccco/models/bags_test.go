package models

import (
	"slices"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// toyRows has n rows whose first feature is the row's index.
func toyRows(n int) *data.Dataset {
	ds := &data.Dataset{Name: "rows", FeatureNames: []string{"i", "z"}, ClassNames: []string{"a", "b"}}
	for i := range n {
		ds.X = append(ds.X, float32(i), 0)
		ds.Y = append(ds.Y, i%2)
	}
	return ds
}

// MLJEnsembles' bags: floor(0.8·n) distinct rows per member, each member its own, none for a single model
// or a fraction of 0; a fraction outside [0, 1] is an error.
func TestBags(t *testing.T) {
	bags, err := Bags(11, 3, 0.8, 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(bags) != 3 {
		t.Fatalf("%d bags, want 3", len(bags))
	}
	for i, b := range bags {
		s := slices.Sorted(slices.Values(b))
		if len(b) != 8 || slices.Compact(s) == nil || len(slices.Compact(slices.Clone(s))) != 8 || s[0] < 0 || s[7] > 10 {
			t.Errorf("bag %d = %v: want 8 distinct rows of 0 … 10", i, b)
		}
	}
	if slices.Equal(bags[0], bags[1]) {
		t.Error("two members share a bag")
	}
	again, _ := Bags(11, 3, 0.8, 7)
	if !slices.Equal(again[2], bags[2]) {
		t.Error("bags are not a function of the seed")
	}
	for _, c := range []struct {
		members  int
		fraction float64
	}{{1, 0.8}, {3, 0}, {3, 1}} {
		if b, err := Bags(11, c.members, c.fraction, 7); b != nil || err != nil {
			t.Errorf("Bags(11, %d, %v) = %v, %v; want nil, nil", c.members, c.fraction, b, err)
		}
	}
	if _, err := Bags(11, 3, 1.5, 7); err == nil {
		t.Error("a fraction of 1.5 gave no error")
	}
}

// With bags, every epoch shows each member exactly the rows of its own bag.
func TestMemberBatchesServeEachMemberItsBag(t *testing.T) {
	ds := toyRows(11)
	bags, err := Bags(ds.N(), 2, 0.8, 3)
	if err != nil {
		t.Fatal(err)
	}
	mb := newMemberBatches(ds, 2, 3, 5, bags)
	mb.shuffle()
	seen := [][]int{nil, nil}
	for b := range mb.numBatches() {
		x, _ := mb.batch(b)
		vals := x.Value().([][][]float32)
		for i := range 2 {
			for _, row := range vals[i] {
				seen[i] = append(seen[i], int(row[0]))
			}
		}
	}
	for i := range 2 {
		if !slices.Equal(slices.Sorted(slices.Values(seen[i])), slices.Sorted(slices.Values(bags[i]))) {
			t.Errorf("member %d saw rows %v in an epoch, its bag is %v", i, seen[i], bags[i])
		}
	}
}

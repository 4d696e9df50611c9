package data

import (
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestVisionFromRealFiles loads MNIST and Fashion-MNIST from the data directory (DefaultDir(), i.e.
// $ECCCO_DATA_DIR or the repository's data/cache) when they have been fetched; it skips otherwise.
func TestVisionFromRealFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("hashes and decodes the real MNIST and Fashion-MNIST files (seconds)")
	}
	for _, tc := range []struct {
		name       string
		testCounts []int // class counts of the official test set
	}{
		{"mnist", []int{980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009}},
		{"fashion-mnist", []int{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := realVisionDir(t, tc.name)
			spec, _ := lookupSpec(tc.name)
			// The installed files are the published ones (sha256 from data.md).
			for _, base := range idxBases {
				p, err := findIDX(filepath.Join(dir, spec.subdir), base)
				if err != nil {
					t.Fatal(err)
				}
				if sum, err := uncompressedSHA256(p); err != nil || sum != idxSHA256[tc.name][base] {
					t.Fatalf("%s: sha256 %s (%v): not the published file", p, sum, err)
				}
			}
			start := time.Now()
			s, err := Load(tc.name, Options{Dir: dir, Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Load(%q) took %v", tc.name, time.Since(start))
			if s.Train.N() != 10000 || s.Test.N() != 10000 || s.Train.D() != 784 || *s.Train.Image != (ImageShape{28, 28, 1}) {
				t.Fatalf("train %d, test %d, D %d, image %v", s.Train.N(), s.Test.N(), s.Train.D(), s.Train.Image)
			}
			if got := s.Train.ClassCounts(); !reflect.DeepEqual(got, []int{1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}) {
				t.Errorf("training class counts %v", got)
			}
			if got := s.Test.ClassCounts(); !reflect.DeepEqual(got, tc.testCounts) {
				t.Errorf("test class counts %v, want %v", got, tc.testCounts)
			}
			lo, hi := float32(2), float32(-2)
			for _, v := range s.Test.X {
				lo, hi = min(lo, v), max(hi, v)
			}
			if lo != -1 || hi != 1 {
				t.Errorf("test pixels span [%v, %v], want exactly [-1, 1]", lo, hi)
			}
			// Recover the clean training images (same sampling stream) and measure the added noise, on all
			// pixels and on those that were 0 (background, −1 before noise).
			raw, err := readIDXPair(filepath.Join(dir, spec.subdir, mustBase(t, dir, spec.subdir, idxBases[0])),
				filepath.Join(dir, spec.subdir, mustBase(t, dir, spec.subdir, idxBases[1])))
			if err != nil {
				t.Fatal(err)
			}
			idx, err := samplePerClassWithReplacement(raw.labels, 10, 1000, streamRand(5, streamSample))
			if err != nil {
				t.Fatal(err)
			}
			clean := raw.dataset(tc.name, spec.classNames, idx)
			if !reflect.DeepEqual(clean.Y, s.Train.Y) {
				t.Fatal("training labels differ from the recomputed sample")
			}
			var all, background moments
			for i, v := range s.Train.X {
				d := float64(v) - float64(clean.X[i])
				all.add(d)
				if clean.X[i] == -1 {
					background.add(d)
				}
			}
			near(t, "mean noise", all.mean(), 0, 2e-4)
			near(t, "noise sd", all.sd(), 0.03, 2e-4)
			near(t, "mean noise on background pixels", background.mean(), 0, 3e-4)
			near(t, "noise sd on background pixels", background.sd(), 0.03, 3e-4)
			if background.n < 0.5*float64(len(s.Train.X)) {
				t.Errorf("only %v of %d pixels are background", background.n, len(s.Train.X))
			}
			for j := range s.Lower {
				if s.Lower[j] != -1 || s.Upper[j] != 1 {
					t.Fatalf("pixel %d bounds [%v, %v], want [-1, 1]", j, s.Lower[j], s.Upper[j])
				}
			}
		})
	}
}

// moments accumulates the count, sum and sum of squares of values.
type moments struct{ n, s, ss float64 }

func (m *moments) add(v float64) { m.n++; m.s += v; m.ss += v * v }
func (m *moments) mean() float64 { return m.s / m.n }
func (m *moments) sd() float64 {
	mu := m.mean()
	return math.Sqrt((m.ss - m.n*mu*mu) / (m.n - 1))
}

func mustBase(t *testing.T, dir, sub, base string) string {
	t.Helper()
	p, err := findIDX(filepath.Join(dir, sub), base)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Base(p)
}

// The official training files, whole and noise-free: MNIST's published class counts of its 60,000
// training images, pixels exactly in [−1, 1]; a tabular set has no such file.
func TestLoadOfficialTraining(t *testing.T) {
	dir := realVisionDir(t, "mnist")
	d, err := LoadOfficialTraining("mnist", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949} // MNIST's training class counts
	if d.N() != 60000 || d.D() != 784 || !reflect.DeepEqual(d.ClassCounts(), want) {
		t.Fatalf("%d rows of %d, class counts %v; want 60000 of 784, %v", d.N(), d.D(), d.ClassCounts(), want)
	}
	lo, hi := float32(2), float32(-2)
	for _, v := range d.X {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo != -1 || hi != 1 {
		t.Errorf("pixels span [%v, %v], want exactly [-1, 1] (no noise)", lo, hi)
	}
	if _, err := LoadOfficialTraining("moons", dir); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("moons: error %v, want ErrInvalidOption", err)
	}
}

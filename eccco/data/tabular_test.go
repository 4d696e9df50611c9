package data

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/eccco-go/eccco-go/eccco/internal/stats"
)

// sharedDataDir returns the directory with the reference CSVs (cal_housing.csv, gmsc.csv,
// german_credit.csv, cal_housing_raw.csv): $ECCCO_TEST_SHARED_DATA, else ../../../shared/data relative to
// this package. It skips the test when the directory is absent.
func sharedDataDir(t *testing.T) string {
	t.Helper()
	dir := sharedDataPath()
	if _, err := os.Stat(filepath.Join(dir, "cal_housing.csv")); err != nil {
		t.Skipf("reference CSVs not found in %s (set ECCCO_TEST_SHARED_DATA to the directory holding cal_housing.csv, gmsc.csv, german_credit.csv)", dir)
	}
	return dir
}

func sharedDataPath() string {
	if dir := os.Getenv("ECCCO_TEST_SHARED_DATA"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "..", "shared", "data")
}

// concat stacks the rows of a and b.
func concat(a, b *Dataset) *Dataset {
	return &Dataset{X: append(append([]float32(nil), a.X...), b.X...), Y: append(append([]int(nil), a.Y...), b.Y...),
		FeatureNames: a.FeatureNames, ClassNames: a.ClassNames}
}

func TestTabularFromReferenceFiles(t *testing.T) {
	dir := sharedDataDir(t)
	for _, tc := range []struct {
		name          string
		n, d, train   int
		counts        []int // class counts of the whole file
		testPerClass  int
		firstRowFirst float32 // first feature of the file's first data row, unstandardised
	}{
		// Facts about the reference files (counted with independent tools) and the paper's sizes.
		{"california-housing", 20630, 8, 16504, []int{10315, 10315}, 2063, 3.4698},
		{"gmsc", 16714, 10, 13372, []int{8357, 8357}, 1671, 0.009513633},
		{"german-credit", 1000, 20, 800, []int{300, 700}, 100, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, _ := lookupSpec(tc.name)
			raw, err := loadTabularFull(spec, dir)
			if err != nil {
				t.Fatal(err)
			}
			if raw.N() != tc.n || raw.D() != tc.d || !reflect.DeepEqual(raw.ClassCounts(), tc.counts) {
				t.Fatalf("N=%d D=%d counts=%v", raw.N(), raw.D(), raw.ClassCounts())
			}
			if raw.X[0] != tc.firstRowFirst {
				t.Errorf("first value %v, want %v", raw.X[0], tc.firstRowFirst)
			}
			s, err := Load(tc.name, Options{Dir: dir, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			if s.Train.N() != tc.train || s.Test.N() != tc.n-tc.train {
				t.Errorf("train %d test %d, want %d and %d", s.Train.N(), s.Test.N(), tc.train, tc.n-tc.train)
			}
			if got := s.Test.ClassCounts(); got[0] != tc.testPerClass || got[1] != tc.testPerClass {
				t.Errorf("test class counts %v, want %d each", got, tc.testPerClass)
			}
			checkBoundsAreTrainMinMax(t, s)
			// Standardised on the whole set: every feature of train ∪ test has mean 0 and sample sd 1.
			all := concat(s.Train, s.Test)
			for j := range all.D() {
				m, sd := meanSD(column(all, j, -1))
				if math.Abs(m) > 1e-5 || math.Abs(sd-1) > 1e-5 {
					t.Errorf("feature %q: mean %.2g, sd %.8f after standardisation", all.FeatureNames[j], m, sd)
				}
				// The standardiser's parameters are the raw file's mean and sample sd.
				rm, rsd := meanSD(column(raw, j, -1))
				if math.Abs(s.Standardizer.Mean[j]-rm) > 1e-9*max(1, math.Abs(rm)) || math.Abs(s.Standardizer.Scale[j]-rsd) > 1e-9*rsd {
					t.Errorf("feature %q: standardiser (%v, %v), direct (%v, %v)", all.FeatureNames[j], s.Standardizer.Mean[j], s.Standardizer.Scale[j], rm, rsd)
				}
			}
			again, err := Load(tc.name, Options{Dir: dir, Seed: 11})
			if err != nil || !reflect.DeepEqual(again, s) {
				t.Errorf("same seed gave a different split (%v)", err)
			}
			other, err := Load(tc.name, Options{Dir: dir, Seed: 12})
			if err != nil || reflect.DeepEqual(other.Test.X, s.Test.X) {
				t.Errorf("different seeds gave the same test set (%v)", err)
			}
		})
	}
}

func TestTabularMissingFile(t *testing.T) {
	dir := t.TempDir()
	_, err := Load("gmsc", Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "gmsc.csv does not exist") || !strings.Contains(err.Error(), "eccco data fetch gmsc") {
		t.Errorf("error %v", err)
	}
	// A CSV with the wrong columns is refused.
	writeFile(t, dir, "german_credit.csv", []byte("target,a\n1,2\n0,3\n"))
	if _, err := Load("german-credit", Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "feature columns are [a]") {
		t.Errorf("error %v", err)
	}
}

// TestCaliforniaRuleOnReferenceData converts scikit-learn's layout of the raw data and compares it with
// the paper's file: labels follow "value ≥ median" exactly and 10 rows of the majority class are dropped.
func TestCaliforniaRuleOnReferenceData(t *testing.T) {
	dir := sharedDataDir(t)
	f, err := os.Open(filepath.Join(dir, "cal_housing_raw.csv"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	rows, err := readCaliforniaSklearnCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows.values) != 20640 || stats.Median(rows.values) != 1.797 {
		t.Fatalf("%d rows, median %v; want 20,640 and 1.797", len(rows.values), stats.Median(rows.values))
	}
	c, err := binariseCalifornia(rows, NewRand(5))
	if err != nil {
		t.Fatal(err)
	}
	conv := readAllCSV(t, strings.NewReader(string(c.data)))
	paper := readAllCSV(t, mustOpen(t, filepath.Join(dir, "cal_housing.csv")))
	if !reflect.DeepEqual(conv[0], paper[0]) {
		t.Errorf("header %v, paper's %v", conv[0], paper[0])
	}
	if len(conv) != len(paper) {
		t.Errorf("%d converted rows, the paper's file has %d", len(conv)-1, len(paper)-1)
	}
	paperLabel := map[string]string{}
	for _, r := range paper[1:] {
		paperLabel[strings.Join(r[:8], ",")] = r[8]
	}
	common, counts := 0, map[string]int{}
	for _, r := range conv[1:] {
		counts[r[8]]++
		if l, ok := paperLabel[strings.Join(r[:8], ",")]; ok {
			common++
			if l != r[8] {
				t.Fatalf("row %v labelled %s, the paper's file says %s", r[:8], r[8], l)
			}
		}
	}
	if counts["0.0"] != 10315 || counts["1.0"] != 10315 || common < 20610 {
		t.Errorf("class counts %v, %d rows in common with the paper's file", counts, common)
	}
}

func mustOpen(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func readAllCSV(t *testing.T, r interface{ Read([]byte) (int, error) }) [][]string {
	t.Helper()
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

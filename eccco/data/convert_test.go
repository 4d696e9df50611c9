package data

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The first two lines of StatLib's cal_housing.data and the corresponding rows of scikit-learn's
// fetch_california_housing (as in the reference cal_housing_raw.csv).
const statLibHead = "-122.230000,37.880000,41.000000,880.000000,129.000000,322.000000,126.000000,8.325200,452600.000000\n" +
	"-122.220000,37.860000,21.000000,7099.000000,1106.000000,2401.000000,1138.000000,8.301400,358500.000000\n"

var sklearnHead = [][]string{
	{"8.3252", "41.0", "6.984126984126984", "1.0238095238095237", "322.0", "2.5555555555555554", "37.88", "-122.23"},
	{"8.3014", "21.0", "6.238137082601054", "0.9718804920913884", "2401.0", "2.109841827768014", "37.86", "-122.22"},
}

func TestCaliforniaFromStatLib(t *testing.T) {
	// StatLib's first two districts plus three made-up ones: the median house value of {452600, 358500,
	// 100000, 150000, 200000} is 200000, so three rows are at or above it (class 1) and two below.
	data := statLibHead +
		"-120.0,35.0,10.0,100.0,20.0,50.0,25.0,2.0,100000.0\n" +
		"-120.0,35.0,10.0,100.0,20.0,50.0,25.0,3.0,150000.0\n" +
		"-120.0,35.0,10.0,100.0,20.0,50.0,25.0,4.0,200000.0\n"
	rows, err := readCaliforniaStatLib(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows.features[:2], sklearnHead) {
		t.Errorf("derived features\n%v\nwant scikit-learn's\n%v", rows.features[:2], sklearnHead)
	}
	c, err := binariseCalifornia(rows, NewRand(1))
	if err != nil {
		t.Fatal(err)
	}
	recs := readAllCSV(t, strings.NewReader(string(c.data)))
	if len(recs) != 5 { // header + 2 per class
		t.Fatalf("got %d lines: %v", len(recs), recs)
	}
	counts := map[string]int{}
	for _, r := range recs[1:] {
		counts[r[8]]++
		if r[0] == "2.0" || r[0] == "3.0" {
			if r[8] != "0.0" {
				t.Errorf("cheap district %v labelled %s", r, r[8])
			}
		} else if r[8] != "1.0" {
			t.Errorf("district %v at or above the median labelled %s", r, r[8])
		}
	}
	if counts["0.0"] != 2 || counts["1.0"] != 2 {
		t.Errorf("class counts %v", counts)
	}
	for _, bad := range []string{"1,2,3\n", "1,2,3,4,5,6,0,8,9\n", "1,2,3,4,5,6,7,x,9\n", ""} {
		if _, err := readCaliforniaStatLib(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestPyFloat(t *testing.T) {
	for v, want := range map[float64]string{956: "956.0", -118.35: "-118.35", 5.390243902439025: "5.390243902439025",
		0: "0.0", 1e-5: "1e-05", 0.5: "0.5", 1.5e20: "1.5e+20"} {
		if got := pyFloat(v); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", v, got, want)
		}
	}
}

const csTraining = `"",SeriousDlqin2yrs,RevolvingUtilizationOfUnsecuredLines,age,NumberOfTime30-59DaysPastDueNotWorse,DebtRatio,MonthlyIncome,NumberOfOpenCreditLinesAndLoans,NumberOfTimes90DaysLate,NumberRealEstateLoansOrLines,NumberOfTime60-89DaysPastDueNotWorse,NumberOfDependents
"1",1,0.766126609,45,2,0.802982129,9120,13,0,6,0,2
"2",0,0.957151019,40,0,0.121876201,2600,4,0,0,0,1
"3",0,0.65818014,38,1,0.085113375,3042,2,1,0,0,0
"4",0,0.233809776,30,0,0.036049682,3300,5,0,0,0,0
"5",0,0.9072394,49,1,0.024925695,63588,7,0,1,0,0
"6",1,0.213178682,74,0,0.375606969,NA,3,0,1,0,1
"7",0,0.305682465,57,0,5710,NA,8,0,3,0,0
"8",1,0.754463648,39,0,0.209940017,3500,8,0,0,0,0
"9",0,0.116950644,27,0,46,NA,2,0,0,0,NA
`

func TestConvertGMSC(t *testing.T) {
	c, err := convertGMSC(strings.NewReader(csTraining), NewRand(9))
	if err != nil {
		t.Fatal(err)
	}
	recs := readAllCSV(t, strings.NewReader(string(c.data)))
	if want := append([]string{"target"}, gmscFeatures...); !reflect.DeepEqual(recs[0], want) {
		t.Errorf("header %v", recs[0])
	}
	// Complete rows: 1 (delinquent), 2, 3, 4, 5, 8 (delinquent): 2 delinquent → keep 2 + 2.
	if len(recs) != 5 {
		t.Fatalf("%d rows: %v", len(recs)-1, recs)
	}
	counts := map[string]int{}
	for _, r := range recs[1:] {
		counts[r[0]]++
		if r[4] == "NA" || r[10] == "NA" {
			t.Errorf("row with a missing value kept: %v", r)
		}
	}
	if counts["0"] != 2 || counts["1"] != 2 {
		t.Errorf("class counts %v", counts)
	}
	// Delinquent rows get target 0 and keep their values verbatim.
	if !reflect.DeepEqual(recs[1], []string{"0", "0.766126609", "45", "2", "0.802982129", "9120", "13", "0", "6", "0", "2"}) {
		t.Errorf("first row %v", recs[1])
	}
	again, _ := convertGMSC(strings.NewReader(csTraining), NewRand(9))
	if string(again.data) != string(c.data) {
		t.Error("same seed, different output")
	}
	if _, err := convertGMSC(strings.NewReader("a,b\n1,2\n"), NewRand(0)); err == nil || !strings.Contains(err.Error(), "SeriousDlqin2yrs") {
		t.Errorf("wrong header: %v", err)
	}
	bad := strings.Replace(csTraining, "0.957151019", "abc", 1)
	if _, err := convertGMSC(strings.NewReader(bad), NewRand(0)); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("bad number: %v", err)
	}
}

// The first two lines of UCI's german.data and the rows of the paper's file they correspond to.
const germanHead = "A11 6 A34 A43 1169 A65 A75 4 A93 A101 4 A121 67 A143 A152 2 A173 1 A192 A201 1\n" +
	"A12 48 A32 A43 5951 A61 A73 2 A92 A101 2 A121 22 A143 A152 1 A173 1 A191 A201 2\n"

var germanPaperRows = []string{
	"1,1,6,4,3,1169,5,5,4,3,1,4,1,67,3,2,2,3,1,2,1",
	"0,2,48,2,3,5951,1,3,2,2,1,2,1,22,3,2,1,3,1,1,1",
}

func TestConvertGermanUCI(t *testing.T) {
	c, err := convertGermanUCI(strings.NewReader(germanHead))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(c.data)), "\n")
	if want := "target," + strings.Join(germanFeatures, ","); lines[0] != want {
		t.Errorf("header %q", lines[0])
	}
	if !reflect.DeepEqual(lines[1:], germanPaperRows) {
		t.Errorf("rows %q, want %q", lines[1:], germanPaperRows)
	}
	// Both rows are in the paper's file.
	if f, err := os.Open(filepath.Join(sharedDataPath(), "german_credit.csv")); err == nil {
		defer f.Close()
		found := map[string]bool{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			found[sc.Text()] = true
		}
		for _, r := range germanPaperRows {
			if !found[r] {
				t.Errorf("row %q is not in the paper's german_credit.csv", r)
			}
		}
	}
	for _, bad := range []string{"A11 6\n", strings.Replace(germanHead, "A43", "B43", 1), strings.Replace(germanHead, "1169", "x", 1),
		strings.Replace(germanHead, "A201 1\n", "A201 3\n", 1), ""} {
		if _, err := convertGermanUCI(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

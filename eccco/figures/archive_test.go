package figures

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A criteria archive reads back as written, a value that is not finite as NaN; a figure without one is
// os.ErrNotExist, and a file naming another figure is refused.
func TestCriteriaArchive(t *testing.T) {
	dir := t.TempDir()
	cs := []Criterion{
		{Claim: "valid", Measure: "counterfactuals with p ≥ 0.5, of 3", Value: 3, Detail: "Wachter p = 0.96", Holds: true},
		{Claim: "plausible", Measure: "share read as the target", Value: 0.2, Holds: false},
		{Claim: "undefined", Measure: "a ratio of two zeros", Value: math.NaN()},
	}
	p, err := WriteCriteria(dir, "fig-x", cs)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "fig-x.criteria.json" {
		t.Errorf("written to %s", p)
	}
	got, err := ReadCriteria(dir, "fig-x")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != cs[0] || got[1] != cs[1] || !math.IsNaN(got[2].Value) || got[2].Claim != "undefined" {
		t.Errorf("read back %+v", got)
	}
	raw, _ := os.ReadFile(p)
	if !strings.Contains(string(raw), `"shown": "0.2"`) || !strings.Contains(string(raw), `"value": null`) {
		t.Errorf("the archive should carry the printed value and null for NaN:\n%s", raw)
	}
	if _, err := ReadCriteria(dir, "fig-y"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a figure without an archive: %v", err)
	}
	if err := os.Rename(p, filepath.Join(dir, "fig-y.criteria.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCriteria(dir, "fig-y"); err == nil {
		t.Error("an archive naming another figure was read")
	}
}

var (
	galleryNote = regexp.MustCompile("^`eccco figures --only ([a-z0-9-]+)` · (.+)$")
	verdict     = regexp.MustCompile(`— (holds|does not hold)`)
	number      = regexp.MustCompile(`-?\d+(?:\.\d+)?`)
	// measured picks the measured values out of a criterion's detail: numbers printed with two or more
	// decimals (p = 0.96, distances 1.05), not the constants of its explanation (Σₖ Cₖ ≤ 1, q̂ ≤ 0.5).
	measured = regexp.MustCompile(`-?\d+\.\d{2,}`)
)

// The gallery's notes (figures/README.md) quote the criteria archived beside the committed images
// (figures/gallery/NAME.criteria.json, written by the pass that drew them): a note that says "Measured" has
// an archive, its verdicts ("— holds" / "— does not hold", in order, before any "Cause") are the archive's,
// and each criterion's value and the measured values of its detail are in the note, to the note's precision.
func TestGalleryNotesQuoteTheArchive(t *testing.T) {
	root := filepath.Join("..", "..", "figures")
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range strings.Split(string(raw), "\n") {
		m := galleryNote.FindStringSubmatch(line)
		if m == nil || !strings.Contains(m[2], "Measured") {
			continue
		}
		name, note := m[1], strings.ReplaceAll(m[2], "−", "-")
		cs, err := ReadCriteria(filepath.Join(root, "gallery"), name)
		if err != nil {
			t.Errorf("%s: the note says Measured but: %v", name, err)
			continue
		}
		checked++
		head, _, _ := strings.Cut(note, "Cause")
		var want, got []bool
		for _, c := range cs {
			want = append(want, c.Holds)
		}
		for _, v := range verdict.FindAllStringSubmatch(head, -1) {
			got = append(got, v[1] == "holds")
		}
		if len(got) != len(want) {
			t.Errorf("%s: the note gives %d verdicts, the archive %d criteria", name, len(got), len(want))
		} else {
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s: criterion %d (%s): the note says holds=%v, the archive %v", name, i+1, cs[i].Claim, got[i], want[i])
				}
			}
		}
		noted := number.FindAllString(note, -1)
		for _, c := range cs {
			if v := formatValue(c.Value); !quoted(v, noted) {
				t.Errorf("%s: %s: the archive's value %s is not in the note", name, c.Claim, v)
			}
			for _, s := range measured.FindAllString(strings.ReplaceAll(c.Detail, "−", "-"), -1) {
				if !quoted(s, noted) {
					t.Errorf("%s: %s: the archive's %s (%q) is not in the note", name, c.Claim, s, c.Detail)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no note of figures/README.md was checked")
	}
}

// quoted reports whether the number s is among the note's numbers, each compared to its own printed
// precision (a note printing 0.20 quotes 0.2, 0.2044 and 0.1962, not 0.21).
func quoted(s string, noted []string) bool {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	for _, n := range noted {
		y, err := strconv.ParseFloat(n, 64)
		if err != nil {
			continue
		}
		half := 0.5
		if _, frac, ok := strings.Cut(n, "."); ok {
			half = 0.5 * math.Pow(10, -float64(len(frac)))
		}
		if math.Abs(x-y) <= half+1e-12 {
			return true
		}
	}
	return false
}

// TestGridSharesOfTheGallery reads the committed gallery's grid shares: five models, each share a count of
// the grid's 90 counterfactuals (k/90), REVISE's rebuilt from its difference to ECCCo+'s.
func TestGridSharesOfTheGallery(t *testing.T) {
	gs, err := GridShares(filepath.Join("..", "..", "figures", "gallery"))
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 5 {
		t.Fatalf("%d models, want 5", len(gs))
	}
	for _, g := range gs {
		for _, p := range []float64{g.ECCCoPlus, g.REVISE} {
			k := p * GridCounterfactuals
			if math.Abs(k-math.Round(k)) > 1e-9 || p < 0 || p > 1 {
				t.Errorf("%s: share %v is not a count of %d", g.Model, p, GridCounterfactuals)
			}
		}
	}
	if _, err := GridShares(t.TempDir()); err != nil {
		t.Errorf("an empty folder: %v", err)
	}
}

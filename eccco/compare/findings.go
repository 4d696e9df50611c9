package compare

import (
	"math"
	"slices"
	"sort"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
)

// Direction is what a claim says of a difference.
type Direction string

const (
	// Below: the claim says the difference is below zero (e.g. ECCCo − Wachter unfaithfulness).
	Below Direction = "below zero"
	// Above: the claim says it is above zero.
	Above Direction = "above zero"
	// NotAbove: the claim says it is not materially above zero ("does not impede").
	NotAbove Direction = "not materially above zero"
)

// Outcome is what one unit (a data set × model) says of a claim.
type Outcome string

const (
	// For: every difference of the unit counts for the claim (ClaimRule).
	For Outcome = "for"
	// Against: some difference counts against it.
	Against Outcome = "against"
	// Neither: no difference counts against it, and not all count for it: not significant, or too small.
	Neither Outcome = "neither"
	// Unmeasured: a cell the unit needs is missing from the source.
	Unmeasured Outcome = "not measurable"
)

// Judge decides what an estimate says of a difference claimed to lie in direction d (ClaimRule).
func Judge(e Estimate, d Direction) Outcome { return JudgeAt(e, d, Materiality) }

// JudgeAt is Judge with another materiality than Materiality (for the verdicts' sensitivity to it).
func JudgeAt(e Estimate, d Direction, materiality float64) Outcome {
	material := e.Scale > 0 && math.Abs(e.Value) >= materiality*e.Scale
	switch d {
	case Below:
		if e.Hi < 0 && material {
			return For
		}
		if e.Lo > 0 && material {
			return Against
		}
	case Above:
		if e.Lo > 0 && material {
			return For
		}
		if e.Hi < 0 && material {
			return Against
		}
	case NotAbove:
		if e.Lo > 0 && material {
			return Against
		}
		if e.Scale > 0 && e.Hi < materiality*e.Scale {
			return For
		}
	}
	return Neither
}

// Term is one cell a contrast reads, of the "all" subset of the unit's data set.
type Term struct{ Model, Generator, Metric string }

// Contrast is a difference of cells' means whose side a claim names.
type Contrast struct {
	// Label names the difference, e.g. "ECCCo − Wachter unfaithfulness".
	Label string
	Terms []Term
	// F is the difference at the terms' values (one run's means, or the cells' means).
	F    func(v []float64) float64
	Want Direction
	// Relative marks a difference of relative gains, whose scale is 1; otherwise the scale is the
	// largest absolute mean of the terms' cells.
	Relative bool
}

// ClaimSource is a set of results a claim is tested on.
type ClaimSource struct {
	Name  string
	Cells []Cell
	// RunMeans, where given, make every difference paired over runs (TestPaired); without them the
	// cells' means, sd and runs give Welch's interval.
	RunMeans []RunMean
	// Rounded, where not nil, rounds each cell's mean and sd first to the decimals it returns for the
	// cell (the decimals the paper printed that cell with: PrintedDecimals), the sd floored at half the
	// last decimal (PublishedSDFloor), as the published tables print them; the run means are then not
	// used.
	Rounded func(c Cell) int
	// Runs gives the runs behind a cell that records none (the published cells: PublishedRuns).
	Runs func(dataset string) int
	// Only, where not nil, restricts the units to these data set × model pairs.
	Only map[[2]string]bool
	// Ours is false for the published tables.
	Ours bool
}

// Unit is one data set × model (or, for claims across models, a data set × model pair) with its
// differences' estimates and outcome.
type Unit struct {
	Dataset, Model string
	Estimates      []UnitEstimate
	Outcome        Outcome
}

// UnitEstimate is one difference of a unit.
type UnitEstimate struct {
	Label    string
	Want     Direction
	Estimate Estimate
	Outcome  Outcome
}

// Tally counts a claim's units by outcome in one source.
type ClaimTally struct {
	For, Against, Neither, Unmeasured int
}

// Measured is the units that could be tested.
func (t ClaimTally) Measured() int { return t.For + t.Against + t.Neither }

// Verdicts of a claim in one source: holds where at least VerdictHoldsShare of the measured units count
// for it, partly where at least VerdictPartlyShare, does not otherwise (whatever the signs of the
// differences that do not count), not checkable where none was measured.
const (
	VerdictHolds   = "holds"
	VerdictPartly  = "partly"
	VerdictDoesNot = "does not hold"
	VerdictNone    = "not checkable"

	VerdictHoldsShare  = 0.8
	VerdictPartlyShare = 0.5
)

// Verdict is the verdict of a tally.
func (t ClaimTally) Verdict() string {
	m := t.Measured()
	switch {
	case m == 0:
		return VerdictNone
	case float64(t.For) >= VerdictHoldsShare*float64(m):
		return VerdictHolds
	case float64(t.For) >= VerdictPartlyShare*float64(m):
		return VerdictPartly
	}
	return VerdictDoesNot
}

// index holds a source's "all" cells and run means for lookup.
type index struct {
	src   ClaimSource
	cells map[[4]string]Cell
	runs  map[[4]string]map[int]float64
	pairs [][2]string
}

func newIndex(src ClaimSource) *index {
	ix := &index{src: src, cells: map[[4]string]Cell{}, runs: map[[4]string]map[int]float64{}}
	seen := map[[2]string]bool{}
	for _, c := range src.Cells {
		if c.Subset != "all" || math.IsNaN(c.Mean) {
			continue
		}
		if src.Rounded != nil {
			d := src.Rounded(c)
			c.Mean = RoundPrinted(c.Mean, d)
			c.SD = math.Max(RoundPrinted(c.SD, d), PublishedSDFloor(d))
		}
		if c.Runs == 0 && src.Runs != nil {
			c.Runs = src.Runs(c.Dataset)
		}
		ix.cells[[4]string{c.Dataset, c.Model, c.Generator, c.Metric}] = c
		p := [2]string{c.Dataset, c.Model}
		if !seen[p] && (src.Only == nil || src.Only[p]) {
			seen[p] = true
			ix.pairs = append(ix.pairs, p)
		}
	}
	if src.Rounded == nil {
		for _, r := range src.RunMeans {
			if r.Subset != "all" || r.N == 0 || math.IsNaN(r.Mean) {
				continue
			}
			k := [4]string{r.Dataset, r.Model, r.Generator, r.Metric}
			if ix.runs[k] == nil {
				ix.runs[k] = map[int]float64{}
			}
			ix.runs[k][r.Run] = r.Mean
		}
	}
	sort.SliceStable(ix.pairs, func(i, j int) bool {
		a, b := ix.pairs[i], ix.pairs[j]
		if a[0] != b[0] {
			return DatasetOrder(a[0]) < DatasetOrder(b[0])
		}
		return ModelOrder(a[1]) < ModelOrder(b[1])
	})
	return ix
}

// roundTo rounds half away from zero to d decimals, as the paper's tables print.
func roundTo(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

func (ix *index) has(ds, model string, gen catalogue.Name, metric string) bool {
	_, ok := ix.cells[[4]string{ds, model, string(gen), metric}]
	return ok
}

// estimate tests one contrast on data set ds; ok is false where a term's cell is missing.
func (ix *index) estimate(ds string, c Contrast) (Estimate, bool) {
	m := make([]float64, len(c.Terms))
	s := make([]float64, len(c.Terms))
	n := make([]int, len(c.Terms))
	scale := 0.0
	for i, t := range c.Terms {
		cell, ok := ix.cells[[4]string{ds, t.Model, t.Generator, t.Metric}]
		if !ok {
			return Estimate{}, false
		}
		m[i], s[i], n[i] = cell.Mean, cell.SD, cell.Runs
		scale = math.Max(scale, math.Abs(cell.Mean))
	}
	if c.Relative {
		scale = 1
	}
	if d, ok := ix.perRun(ds, c); ok {
		return PairedEstimate(d, scale)
	}
	return WelchEstimate(c.F, m, s, n, scale)
}

// perRun is the contrast within each run that every term has, in run order; ok is false where a term
// has no run means.
func (ix *index) perRun(ds string, c Contrast) ([]float64, bool) {
	var common []int
	for i, t := range c.Terms {
		rs, ok := ix.runs[[4]string{ds, t.Model, t.Generator, t.Metric}]
		if !ok {
			return nil, false
		}
		var keys []int
		for r := range rs {
			if i == 0 || slices.Contains(common, r) {
				keys = append(keys, r)
			}
		}
		common = keys
	}
	slices.Sort(common)
	d := make([]float64, 0, len(common))
	v := make([]float64, len(c.Terms))
	for _, r := range common {
		for i, t := range c.Terms {
			v[i] = ix.runs[[4]string{ds, t.Model, t.Generator, t.Metric}][r]
		}
		d = append(d, c.F(v))
	}
	return d, true
}

// ClaimFinding is one claim tested in one source.
type ClaimFinding struct {
	Source  string
	Units   []Unit
	Tally   ClaimTally
	Verdict string
}

// TestClaim tests claim c in source src.
func TestClaim(c PaperClaim, src ClaimSource) ClaimFinding {
	return testClaim(c, newIndex(src), Materiality)
}

func testClaim(c PaperClaim, ix *index, materiality float64) ClaimFinding {
	src := ix.src
	f := ClaimFinding{Source: src.Name}
	for _, u := range c.units(ix.pairs) {
		contrasts, ok := c.Contrasts(ix, u[0], u[1])
		unit := Unit{Dataset: u[0], Model: u[1], Outcome: For}
		if !ok || len(contrasts) == 0 {
			unit.Outcome = Unmeasured
		}
		for _, ct := range contrasts {
			e, ok := ix.estimate(u[0], ct)
			ue := UnitEstimate{Label: ct.Label, Want: ct.Want, Estimate: e, Outcome: Unmeasured}
			if ok {
				ue.Outcome = JudgeAt(e, ct.Want, materiality)
			}
			unit.Estimates = append(unit.Estimates, ue)
			switch {
			case ue.Outcome == Unmeasured:
				unit.Outcome = Unmeasured
			case unit.Outcome == Unmeasured:
			case ue.Outcome == Against:
				unit.Outcome = Against
			case ue.Outcome == Neither && unit.Outcome == For:
				unit.Outcome = Neither
			}
		}
		switch unit.Outcome {
		case For:
			f.Tally.For++
		case Against:
			f.Tally.Against++
		case Neither:
			f.Tally.Neither++
		default:
			f.Tally.Unmeasured++
		}
		f.Units = append(f.Units, unit)
	}
	f.Verdict = f.Tally.Verdict()
	return f
}

// Findings are the paper's claims tested in each source: the one value the report renders and the
// recount checks (written as JSON beside the report).
type Findings struct {
	Rule        string
	Confidence  float64
	Materiality float64
	Sources     []string
	Claims      []FindingsClaim
	// Sensitivity gives, for each of SensitivityMaterialities, every claim's tally in every source.
	Sensitivity []Sensitivity
}

// SensitivityMaterialities are the materialities at which Findings.Sensitivity recounts the claims.
var SensitivityMaterialities = []float64{0.01, 0.05, 0.10}

// Sensitivity is every claim's tally (per claim, then per source) at one materiality.
type Sensitivity struct {
	Materiality float64
	Tallies     [][]ClaimTally
}

// FindingsClaim is one claim with its finding in each source (in Findings.Sources' order).
type FindingsClaim struct {
	ID, Quote, Where, Test, Limits string
	Figures                        []string
	Findings                       []ClaimFinding
}

// TestClaims tests every claim of PaperClaims in every source.
func TestClaims(sources []ClaimSource) Findings {
	f := Findings{Rule: ClaimRule, Confidence: Confidence, Materiality: Materiality}
	for _, s := range sources {
		f.Sources = append(f.Sources, s.Name)
	}
	ixs := make([]*index, len(sources))
	for i, s := range sources {
		ixs[i] = newIndex(s)
	}
	for _, c := range PaperClaims {
		fc := FindingsClaim{ID: c.ID, Quote: c.Quote, Where: c.Where, Test: c.Test, Limits: c.Limits, Figures: c.Figures}
		for _, ix := range ixs {
			fc.Findings = append(fc.Findings, testClaim(c, ix, Materiality))
		}
		f.Claims = append(f.Claims, fc)
	}
	for _, m := range SensitivityMaterialities {
		s := Sensitivity{Materiality: m}
		for _, c := range PaperClaims {
			var row []ClaimTally
			for _, ix := range ixs {
				row = append(row, testClaim(c, ix, m).Tally)
			}
			s.Tallies = append(s.Tallies, row)
		}
		f.Sensitivity = append(f.Sensitivity, s)
	}
	return f
}

// LikeForLike is src as the published tables print it, for comparing with them on equal terms: each
// cell rounded to the decimals the paper printed that cell with (PrintedDecimals: 2 for the appendix's,
// 3 for Table 2's; 2 for a cell the paper lacks), its sd floored at half the last decimal, Welch's test
// (no run means), only on the data set × model pairs the published cells have. The claims read cells of
// all counterfactuals only, which the paper prints to two decimals; Table 2's three-decimal cells are of
// valid counterfactuals and do not enter them.
func LikeForLike(src ClaimSource, published []Published) ClaimSource {
	only := map[[2]string]bool{}
	for _, p := range published {
		only[[2]string{p.Dataset, p.Model}] = true
	}
	out := src
	out.Name = src.Name + ", rounded as published"
	out.RunMeans, out.Rounded, out.Only = nil, PrintedDecimals(published), only
	return out
}

// PublishedSource is the published tables as a source: each cell at the decimals it was printed with,
// its sd floored at half the last of them (PublishedSDFloor: an sd printed as 0.00 is taken as 0.005, one
// printed as 0.000 as 0.0005), Welch's test with the paper's runs (PublishedRuns).
func PublishedSource(published []Published) ClaimSource {
	return ClaimSource{Name: "published tables", Cells: PublishedCells(published), Rounded: PrintedDecimals(published), Runs: PublishedRuns}
}

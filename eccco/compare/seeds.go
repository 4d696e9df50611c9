package compare

import (
	"math"
	"sort"
)

// SeedZRule states how SeedShifts decides that a cell differs between two seeds.
const SeedZRule = "z = (second seed's mean − first seed's mean) / √(sd²/n + sd²/n), each sd that of a seed's run means over its n runs, with no floor (both are computed, not printed)"

// SeedZ is the two-sample z of one cell under two seeds (SeedZRule): NaN where a side has fewer than two
// runs or no mean; 0 where both sd are 0 and the means are equal, ±Inf where they differ.
func SeedZ(a, b Cell) float64 {
	if a.Runs < 2 || b.Runs < 2 || math.IsNaN(a.Mean) || math.IsNaN(b.Mean) || math.IsNaN(a.SD) || math.IsNaN(b.SD) {
		return math.NaN()
	}
	d := b.Mean - a.Mean
	v := a.SD*a.SD/float64(a.Runs) + b.SD*b.SD/float64(b.Runs)
	if v == 0 {
		if d == 0 {
			return 0
		}
		return math.Copysign(math.Inf(1), d)
	}
	return d / math.Sqrt(v)
}

// SeedGroup counts the cells of one generator (or of all, Name "all") under two seeds.
type SeedGroup struct {
	Name string
	// Cells are the cells both seeds have (with a mean on both sides); Differ those of them with
	// |SeedZ| > ZThreshold.
	Cells, Differ int
	// Published are the cells with a published counterpart; WithinFirst and WithinSecond those of them
	// within the rounding-aware tolerance under each seed; Left are within under the first and not the
	// second, Entered the reverse.
	Published, WithinFirst, WithinSecond, Left, Entered int
}

// SeedShift is what a second seed moves: the counts of SeedGroup over all cells both sets have (All), per
// generator (ByGenerator, in the paper's generator order) and per data set (ByDataset, in the order the
// second set first names them).
type SeedShift struct {
	All         SeedGroup
	ByGenerator []SeedGroup
	ByDataset   []SeedGroup
}

// SeedShifts compares the cells of two seeds (first, second), each on the data sets of the second only,
// cell by cell (SeedZ), and against the published numbers (Compare): the cells that differ between the
// seeds, and those that change side of the tolerance.
func SeedShifts(first, second []Cell, pub []Published) SeedShift {
	ds := map[string]bool{}
	for _, c := range second {
		ds[c.Dataset] = true
	}
	firstBy := map[cellKey]Cell{}
	for _, c := range first {
		if ds[c.Dataset] {
			firstBy[c.key()] = c
		}
	}
	within := func(cells []Cell) map[cellKey]bool {
		out := map[cellKey]bool{}
		for _, r := range Compare(cells, pub).Rows {
			out[r.key()] = r.Within
		}
		return out
	}
	var firstCells []Cell
	for _, c := range firstBy {
		firstCells = append(firstCells, c)
	}
	w1, w2 := within(firstCells), within(second)
	groups, byDS := map[string]*SeedGroup{}, map[string]*SeedGroup{}
	var dsOrder []string
	all := SeedGroup{Name: "all"}
	for _, b := range second {
		a, ok := firstBy[b.key()]
		if !ok || math.IsNaN(a.Mean) || math.IsNaN(b.Mean) {
			continue
		}
		g := groups[b.Generator]
		if g == nil {
			g = &SeedGroup{Name: b.Generator}
			groups[b.Generator] = g
		}
		dg := byDS[b.Dataset]
		if dg == nil {
			dg = &SeedGroup{Name: b.Dataset}
			byDS[b.Dataset] = dg
			dsOrder = append(dsOrder, b.Dataset)
		}
		for _, t := range []*SeedGroup{g, dg, &all} {
			t.Cells++
			if math.Abs(SeedZ(a, b)) > ZThreshold {
				t.Differ++
			}
			in1, ok1 := w1[b.key()]
			in2, ok2 := w2[b.key()]
			if !ok1 || !ok2 {
				continue
			}
			t.Published++
			if in1 {
				t.WithinFirst++
			}
			if in2 {
				t.WithinSecond++
			}
			if in1 && !in2 {
				t.Left++
			}
			if in2 && !in1 {
				t.Entered++
			}
		}
	}
	out := SeedShift{All: all}
	for _, g := range groups {
		out.ByGenerator = append(out.ByGenerator, *g)
	}
	sort.Slice(out.ByGenerator, func(i, j int) bool {
		return GeneratorIndex(out.ByGenerator[i].Name) < GeneratorIndex(out.ByGenerator[j].Name)
	})
	for _, d := range dsOrder {
		out.ByDataset = append(out.ByDataset, *byDS[d])
	}
	return out
}

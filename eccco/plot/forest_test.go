package plot

import (
	"bytes"
	"image/color"
	"math"
	"testing"
)

func testForest(t *testing.T) Figure {
	t.Helper()
	f, err := Forest("deviation", []ForestRow{
		{Label: "Moons", Points: []ForestPoint{{"A", 0.5}, {"B", -2}, {"A", 40}}},
		{Label: "Circles", Points: []ForestPoint{{"B", -700}}},
	}, []ForestSeries{{"A", Blue, Circle}, {"B", Orange, Square}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The band comes first, then one layer per series with its points at their rows (the first row on top,
// the first series above the second within a row), on a symmetric axis that holds every point.
func TestForestLayers(t *testing.T) {
	f := testForest(t)
	p := f.Panels[0]
	if len(p.Layers) != 3 {
		t.Fatalf("%d layers, want band and two series", len(p.Layers))
	}
	if b, ok := p.Layers[0].(*BandLayer); !ok || b.Half != 3 {
		t.Fatalf("first layer %#v, want the band ±3", p.Layers[0])
	}
	a, b := p.Layers[1].(*ForestLayer), p.Layers[2].(*ForestLayer)
	if len(a.XYs) != 2 || a.XYs[0].X != 0.5 || a.XYs[1].X != 40 || math.Round(a.XYs[0].Y) != 1 {
		t.Errorf("series A at %v, want 0.5 and 40 in the top row (y = 1)", a.XYs)
	}
	if len(b.XYs) != 2 || b.XYs[1].X != -700 || math.Round(b.XYs[1].Y) != 0 || !(b.XYs[0].Y < a.XYs[0].Y) {
		t.Errorf("series B at %v, want −700 in the bottom row and dodged below A", b.XYs)
	}
	if p.Plot.X.Min != -p.Plot.X.Max || p.Plot.X.Max < 700 {
		t.Errorf("x axis %v … %v, want symmetric and holding 700", p.Plot.X.Min, p.Plot.X.Max)
	}
	if b.Series.Shape != Square || b.Series.Color != color.Color(Orange) {
		t.Errorf("series B drawn as %+v", b.Series)
	}
	if len(f.Legend) != 2 || len(legendLines(f.Legend, f.Width)) != 1 {
		t.Errorf("legend %v", f.Legend)
	}
}

// The axis puts 3 at log10(4) and −3 opposite it; the ticks are 0, ±1, ±band and ±10, ±30, … within it.
func TestSymLogScaleAndTicks(t *testing.T) {
	n := SymLog{}
	if got := n.Normalize(-999, 999, 3); math.Abs(got-(0.5+0.5*math.Log10(4)/3)) > 1e-12 {
		t.Errorf("3 on ±999 at %v", got)
	}
	if got := n.Normalize(-999, 999, 0); got != 0.5 {
		t.Errorf("0 at %v, want the middle", got)
	}
	var vals []float64
	for _, tk := range (SymLogTicks{Band: 3}).Ticks(-120, 120) {
		vals = append(vals, tk.Value)
	}
	want := []float64{-100, -30, -10, -3, -1, 0, 1, 3, 10, 30, 100}
	if len(vals) != len(want) {
		t.Fatalf("ticks %v, want %v", vals, want)
	}
	for i := range want {
		if vals[i] != want[i] {
			t.Fatalf("ticks %v, want %v", vals, want)
		}
	}
}

func TestForestRejectsBadInput(t *testing.T) {
	s := []ForestSeries{{"A", Blue, Circle}}
	for name, rows := range map[string][]ForestRow{
		"unknown series": {{Label: "r", Points: []ForestPoint{{"Z", 1}}}},
		"NaN":            {{Label: "r", Points: []ForestPoint{{"A", math.NaN()}}}},
		"no rows":        nil,
	} {
		if _, err := Forest("x", rows, s, 3); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := Forest("x", []ForestRow{{Label: "r"}}, s, 0); err == nil {
		t.Error("a band of 0 accepted")
	}
	if _, err := Forest("x", []ForestRow{{Label: "r"}}, append(s, s[0]), 3); err == nil {
		t.Error("a series twice accepted")
	}
}

// The same chart gives the same PNG and PDF bytes every time.
func TestForestDeterministic(t *testing.T) {
	for _, enc := range []func(Figure) ([]byte, error){Figure.PNG, Figure.PDF, Figure.SVG} {
		a, err1 := enc(testForest(t))
		b, err2 := enc(testForest(t))
		if err1 != nil || err2 != nil || len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("bytes differ or failed: %v %v", err1, err2)
		}
	}
}

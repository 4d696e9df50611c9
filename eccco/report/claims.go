package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/compare"
)

// FindingsFile is the file, beside the report's LaTeX source, that holds the claims' findings
// (compare.Findings) as JSON: the one value the claims' section, the abstract and the conclusion render,
// and what scripts/recount_findings.py recounts from the run means and the published numbers.
const FindingsFile = "findings.json"

// EncodeFindings is the JSON of findings, indented, with a final newline; NaN and infinite numbers
// (an interval without degrees of freedom) are written as null.
func EncodeFindings(f compare.Findings) ([]byte, error) {
	b, err := json.MarshalIndent(findingsJSON(f), "", " ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// findingsJSON is f with its floats made JSON-safe.
func findingsJSON(f compare.Findings) any {
	num := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	type est struct {
		Label, Want, Outcome, Test           string
		Value, SE, DF, Lo, Hi, Scale, Effect any
		Runs                                 int
	}
	type unit struct {
		Dataset, Model, Outcome string
		Estimates               []est
	}
	type finding struct {
		Source, Verdict                   string
		For, Against, Neither, Unmeasured int
		Units                             []unit
	}
	type claim struct {
		ID, Quote, Where, Test, Limits string
		Findings                       []finding
	}
	type sens struct {
		Materiality float64
		Tallies     [][]compare.ClaimTally
	}
	out := struct {
		Generator               string
		Rule                    string
		Confidence, Materiality float64
		Sources                 []string
		Claims                  []claim
		Sensitivity             []sens
	}{Generator: Marker, Rule: f.Rule, Confidence: f.Confidence, Materiality: f.Materiality, Sources: f.Sources}
	for _, c := range f.Claims {
		cl := claim{ID: c.ID, Quote: c.Quote, Where: c.Where, Test: c.Test, Limits: c.Limits}
		for _, fd := range c.Findings {
			x := finding{Source: fd.Source, Verdict: fd.Verdict, For: fd.Tally.For, Against: fd.Tally.Against, Neither: fd.Tally.Neither, Unmeasured: fd.Tally.Unmeasured}
			for _, u := range fd.Units {
				uu := unit{Dataset: u.Dataset, Model: u.Model, Outcome: string(u.Outcome)}
				for _, e := range u.Estimates {
					uu.Estimates = append(uu.Estimates, est{Label: e.Label, Want: string(e.Want), Outcome: string(e.Outcome), Test: e.Estimate.Test,
						Value: num(e.Estimate.Value), SE: num(e.Estimate.SE), DF: num(e.Estimate.DF), Lo: num(e.Estimate.Lo), Hi: num(e.Estimate.Hi),
						Scale: num(e.Estimate.Scale), Effect: num(e.Estimate.Effect()), Runs: e.Estimate.Runs})
				}
				x.Units = append(x.Units, uu)
			}
			cl.Findings = append(cl.Findings, x)
		}
		out.Claims = append(out.Claims, cl)
	}
	for _, s := range f.Sensitivity {
		out.Sensitivity = append(out.Sensitivity, sens{Materiality: s.Materiality, Tallies: s.Tallies})
	}
	return out
}

// verdictTitle capitalises a verdict for a table cell.
func verdictTitle(v string) string {
	if v == "" {
		return v
	}
	return strings.ToUpper(v[:1]) + v[1:]
}

// tallyText is a finding's counts in a table cell: "16 for, 0 against, 18 neither (does not hold)".
func tallyText(f compare.ClaimFinding) string {
	t := f.Tally
	if t.Measured() == 0 {
		return "–"
	}
	return fmt.Sprintf("%d / %d / %d: %s", t.For, t.Against, t.Neither, f.Verdict)
}

// unitName names a claim's unit: "California Housing, JEM".
func unitName(u compare.Unit) string { return datasetTitle(u.Dataset) + ", " + u.Model }

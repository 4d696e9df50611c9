package figures

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/eccco-go/eccco-go/eccco/internal/atomicfile"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// CriteriaFile is the file beside a figure (DIR/NAME.criteria.json) that Spec.Write fills with the
// criteria its recipe measured on the figure's own data: the record a caption's "Measured" values are
// checked against (the gallery's notes, the report's captions), kept with the images it describes.
func CriteriaFile(name string) string { return name + ".criteria.json" }

// criterionJSON is a Criterion as the archive stores it: Value as a number where it is finite (JSON has no
// NaN), and Shown, the value as captions print it (Criterion.String).
type criterionJSON struct {
	Claim   string   `json:"claim"`
	Measure string   `json:"measure"`
	Value   *float64 `json:"value"`
	Shown   string   `json:"shown"`
	Detail  string   `json:"detail,omitempty"`
	Holds   bool     `json:"holds"`
}

type criteriaJSON struct {
	Figure   string          `json:"figure"`
	Criteria []criterionJSON `json:"criteria"`
}

// WriteCriteria writes DIR/NAME.criteria.json (atomically) and returns its path.
func WriteCriteria(dir, name string, cs []Criterion) (string, error) {
	doc := criteriaJSON{Figure: name, Criteria: []criterionJSON{}}
	for _, c := range cs {
		j := criterionJSON{Claim: c.Claim, Measure: c.Measure, Shown: formatValue(c.Value), Detail: c.Detail, Holds: c.Holds}
		if !math.IsNaN(c.Value) && !math.IsInf(c.Value, 0) {
			v := c.Value
			j.Value = &v
		}
		doc.Criteria = append(doc.Criteria, j)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return "", fmt.Errorf("figure %s: criteria: %w", name, err)
	}
	p := filepath.Join(dir, CriteriaFile(name))
	if err := atomicfile.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("figure %s: criteria: %w", name, err)
	}
	return p, nil
}

// ReadCriteria reads the criteria WriteCriteria stored for figure name in dir; an error wrapping
// os.ErrNotExist when the figure has none there. A value stored as null (not finite) reads as NaN.
func ReadCriteria(dir, name string) ([]Criterion, error) {
	raw, err := os.ReadFile(filepath.Join(dir, CriteriaFile(name)))
	if err != nil {
		return nil, fmt.Errorf("figure %s: criteria: %w", name, err)
	}
	var doc criteriaJSON
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("figure %s: criteria: %w", name, err)
	}
	if doc.Figure != name {
		return nil, fmt.Errorf("figure %s: criteria: %s holds figure %q's", name, CriteriaFile(name), doc.Figure)
	}
	out := make([]Criterion, 0, len(doc.Criteria))
	for _, j := range doc.Criteria {
		c := Criterion{Claim: j.Claim, Measure: j.Measure, Value: math.NaN(), Detail: j.Detail, Holds: j.Holds}
		if j.Value != nil {
			c.Value = *j.Value
		}
		out = append(out, c)
	}
	return out, nil
}

// GridCounterfactuals is the number of counterfactuals of an appendix MNIST grid: each of its 10 digits
// turned into each of the 9 others (CounterfactualGrid).
const GridCounterfactuals = 90

// GridShare is what the appendix's MNIST grids of one model measured: the share of ECCCo+'s and of
// REVISE's GridCounterfactuals that a 1-nearest-neighbour classifier on the training images reads as
// their target.
type GridShare struct {
	Model          models.Kind
	ECCCoPlus      float64
	REVISE         float64
	Counterfactual int
}

// GridShares reads the shares of every model whose two grids' criteria are archived in dir (mnist-eccco-*
// gives ECCCo+'s share; mnist-revise-* REVISE's minus ECCCo+'s); models without both are left out.
func GridShares(dir string) ([]GridShare, error) {
	var out []GridShare
	for _, m := range gridModels {
		ec, err := ReadCriteria(dir, "mnist-eccco-"+m.slug)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		rc, err := ReadCriteria(dir, "mnist-revise-"+m.slug)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(ec) != 1 || len(rc) != 1 {
			return nil, fmt.Errorf("figures: the grids of %s hold %d and %d criteria, want one each", m.slug, len(ec), len(rc))
		}
		out = append(out, GridShare{Model: m.kind, ECCCoPlus: ec[0].Value, REVISE: rc[0].Value + ec[0].Value, Counterfactual: GridCounterfactuals})
	}
	return out, nil
}

package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// ErrSchema: a schema is malformed, or a CSV does not match its schema (ReadSchema, ParseSchema,
// ReadTable, ReadRows). The error names the feature, and for a CSV the line, the data row and the column.
var ErrSchema = errors.New("schema mismatch")

// Feature types of a Schema.
const (
	Numeric     = "numeric"     // one model input, the CSV's value as written
	Categorical = "categorical" // a one-hot group of inputs, one per category, in the order of Categories
	Ordinal     = "ordinal"     // one model input, the level's index in Levels (0, 1, …)
)

// Mutable is how a feature may change in a counterfactual: "both" (free), "none" (immutable),
// "increase" or "decrease". In a schema's JSON it is written true ("both"), false ("none"), "increase"
// or "decrease"; absent means true.
type Mutable string

// The four mutability constraints of a schema.
const (
	MutableBoth     Mutable = "both"
	MutableNone     Mutable = "none"
	MutableIncrease Mutable = "increase"
	MutableDecrease Mutable = "decrease"
)

// UnmarshalJSON reads true, false, "increase" or "decrease" (and the names "both" and "none").
func (m *Mutable) UnmarshalJSON(b []byte) error {
	switch s := string(bytes.TrimSpace(b)); s {
	case "true", `"both"`:
		*m = MutableBoth
	case "false", `"none"`:
		*m = MutableNone
	case `"increase"`:
		*m = MutableIncrease
	case `"decrease"`:
		*m = MutableDecrease
	default:
		return fmt.Errorf("mutable is %s; want true, false, \"increase\" or \"decrease\"", s)
	}
	return nil
}

// MarshalJSON writes the schema's spelling: true, false, "increase" or "decrease".
func (m Mutable) MarshalJSON() ([]byte, error) {
	switch m {
	case MutableNone:
		return []byte("false"), nil
	case MutableIncrease, MutableDecrease:
		return json.Marshal(string(m))
	}
	return []byte("true"), nil
}

// SchemaFeature is one feature of a Schema: a column of the CSV.
type SchemaFeature struct {
	// Name is the CSV column.
	Name string `json:"name"`
	// Type is Numeric, Categorical or Ordinal.
	Type string `json:"type"`
	// Categories are a categorical feature's values, in the order of the model's one-hot inputs.
	Categories []string `json:"categories,omitempty"`
	// Levels are an ordinal feature's values, lowest first; the model reads a level's index.
	Levels []string `json:"levels,omitempty"`
	// Min and Max bound a numeric feature (in the CSV's units) or an ordinal one (as level indices) in
	// a counterfactual; nil means the data's range (Table.Bounds). A categorical feature has none.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Mutable says how the feature may change (nil means MutableBoth). A categorical feature is free or
	// immutable: increase and decrease have no meaning for it.
	Mutable *Mutable `json:"mutable,omitempty"`
}

// Mutability returns the feature's constraint, MutableBoth when the schema leaves it out.
func (f SchemaFeature) Mutability() Mutable {
	if f.Mutable == nil {
		return MutableBoth
	}
	return *f.Mutable
}

// Width is the number of model inputs the feature takes: len(Categories) for a categorical feature,
// 1 otherwise.
func (f SchemaFeature) Width() int {
	if f.Type == Categorical {
		return len(f.Categories)
	}
	return 1
}

// Schema describes a CSV and the model's input layout: the features in the order the model reads them,
// and the label column. Its JSON form is
//
//	{"target": "COLUMN", "classes": ["bad", "good"], "features": [{"name": …, "type": "numeric" |
//	 "categorical" | "ordinal", "categories" or "levels": [...], "min": …, "max": …,
//	 "mutable": true | false | "increase" | "decrease"}]}
//
// "classes", optional, lists the target column's values in the order of the model's outputs; without it
// the classes are the values found in the CSV, sorted (as numbers when every one is an integer).
//
// "image", optional, says that the features are the pixels of one greyscale image, row-major (see
// SchemaImage). A schema of 28 × 28 digits in columns pixel0 … pixel783 needs no feature list:
//
//	{"target": "label", "classes": ["0", "1", …, "9"],
//	 "image": {"height": 28, "width": 28, "prefix": "pixel", "min": 0, "max": 1}}
type Schema struct {
	Target   string          `json:"target"`
	Classes  []string        `json:"classes,omitempty"`
	Features []SchemaFeature `json:"features,omitempty"`
	Image    *SchemaImage    `json:"image,omitempty"`
}

// SchemaImage says that a schema's features are the pixels of one Height × Width greyscale image, row by
// row: every feature numeric, Height·Width of them. Such a schema gets the paper's image settings
// (experiment.Custom).
type SchemaImage struct {
	Height int `json:"height"`
	Width  int `json:"width"`
	// Prefix, when set, names the pixel columns Prefix+i, i = First … First + Height·Width − 1, in
	// row-major order, and the schema then lists no "features": ParseSchema makes them.
	Prefix string `json:"prefix,omitempty"`
	First  int    `json:"first,omitempty"`
	// Min and Max are the pixels' range (such as 0 and 1, or 0 and 255), one for every pixel, where a
	// feature gives none of its own; nil means the smallest and the largest pixel of the data
	// (Table.Bounds). Min must be below Max.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
}

// Pixels is Height·Width.
func (m SchemaImage) Pixels() int { return m.Height * m.Width }

// maxImagePixels bounds an image's size (4096 × 4096), far above what a search over pixels can explain.
const maxImagePixels = 1 << 24

// ReadSchema reads and validates a schema's JSON file. Every error wraps ErrSchema.
func ReadSchema(path string) (*Schema, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the schema: %w", err)
	}
	s, err := ParseSchema(b)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", path, err)
	}
	return s, nil
}

// ParseSchema decodes and validates a schema's JSON. Unknown keys, trailing data, a missing target or
// feature list, an unnamed, duplicated or unknown-typed feature, a categorical feature with fewer than two
// categories (or an ordinal one with fewer than two levels) or repeated ones, categories on a numeric
// feature, bounds on a categorical one, a non-finite bound or min > max, an ordinal bound outside its
// levels, and increase/decrease on a categorical feature are errors wrapping ErrSchema; so are, for an
// "image", a height or width below 1, fewer than 2 pixels, a negative "first", min ≥ max, "features"
// listed next to a "prefix", and without a prefix a feature count other than height·width or a feature
// that is not numeric.
func ParseSchema(b []byte) (*Schema, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff")) // a UTF-8 byte order mark, as a CSV may start with
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var s Schema
	if err := dec.Decode(&s); err != nil {
		return nil, markf(ErrSchema, "not a valid schema: %v", err)
	}
	if dec.More() {
		return nil, markf(ErrSchema, "not a valid schema: data after the JSON object")
	}
	if m := s.Image; m != nil && m.Prefix != "" {
		if len(s.Features) > 0 {
			return nil, markf(ErrSchema, "\"image\" names its pixel columns (\"prefix\": %q) and \"features\" lists %d features too; give one of the two", m.Prefix, len(s.Features))
		}
		if err := m.validate(); err != nil {
			return nil, markf(ErrSchema, "\"image\": %w", err)
		}
		s.Features = make([]SchemaFeature, m.Pixels())
		for i := range s.Features {
			s.Features[i] = SchemaFeature{Name: m.Prefix + strconv.Itoa(m.First+i), Type: Numeric}
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

func (m SchemaImage) validate() error {
	if m.Height < 1 || m.Width < 1 {
		return fmt.Errorf("\"height\" %d and \"width\" %d must both be at least 1", m.Height, m.Width)
	}
	if m.Height > maxImagePixels/m.Width || m.Pixels() < 2 {
		return fmt.Errorf("%d × %d pixels; an image has 2 … %d", m.Height, m.Width, maxImagePixels)
	}
	if m.First < 0 {
		return fmt.Errorf("\"first\" %d must not be negative", m.First)
	}
	for _, b := range []*float64{m.Min, m.Max} {
		if b != nil && (math.IsNaN(*b) || math.IsInf(*b, 0)) {
			return fmt.Errorf("bound %v is not a finite number", *b)
		}
	}
	if m.Min != nil && m.Max != nil && *m.Min >= *m.Max {
		return fmt.Errorf("\"min\" %v must be below \"max\" %v", *m.Min, *m.Max)
	}
	return nil
}

// Validate checks the schema (see ParseSchema).
func (s *Schema) Validate() error {
	if strings.TrimSpace(s.Target) == "" {
		return markf(ErrSchema, "no \"target\" column named")
	}
	if len(s.Features) == 0 {
		return markf(ErrSchema, "no \"features\" (an \"image\" with a \"prefix\" names its pixel columns instead)")
	}
	if err := distinct("class", s.Classes); err != nil {
		return err
	}
	if s.Classes != nil && len(s.Classes) < 2 {
		return markf(ErrSchema, "\"classes\" lists %d class, need at least 2", len(s.Classes))
	}
	seen := map[string]bool{s.Target: true}
	for i, f := range s.Features {
		if strings.TrimSpace(f.Name) == "" {
			return markf(ErrSchema, "feature %d has no name", i)
		}
		if seen[f.Name] {
			if f.Name == s.Target {
				return markf(ErrSchema, "feature %q is the target column", f.Name)
			}
			return markf(ErrSchema, "feature %q is listed twice", f.Name)
		}
		seen[f.Name] = true
		if err := f.validate(); err != nil {
			return markf(ErrSchema, "feature %q: %w", f.Name, err)
		}
	}
	if m := s.Image; m != nil {
		if err := m.validate(); err != nil {
			return markf(ErrSchema, "\"image\": %w", err)
		}
		if len(s.Features) != m.Pixels() {
			return markf(ErrSchema, "\"image\" is %d × %d = %d pixels and the schema has %d features; every feature is a pixel (or name the pixel columns with \"prefix\" and list no features)",
				m.Height, m.Width, m.Pixels(), len(s.Features))
		}
		for _, f := range s.Features {
			if f.Type != Numeric {
				return markf(ErrSchema, "feature %q is %s; the pixels of an \"image\" are all numeric", f.Name, f.Type)
			}
		}
	}
	return nil
}

func (f SchemaFeature) validate() error {
	for _, b := range []*float64{f.Min, f.Max} {
		if b != nil && (math.IsNaN(*b) || math.IsInf(*b, 0)) {
			return fmt.Errorf("bound %v is not a finite number", *b)
		}
	}
	if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
		return fmt.Errorf("min %v > max %v", *f.Min, *f.Max)
	}
	switch f.Mutability() {
	case MutableBoth, MutableNone, MutableIncrease, MutableDecrease:
	default:
		return fmt.Errorf("unknown mutability %q", f.Mutability())
	}
	switch f.Type {
	case Numeric:
		if f.Categories != nil || f.Levels != nil {
			return fmt.Errorf("a numeric feature has no categories or levels")
		}
	case Categorical:
		if f.Levels != nil {
			return fmt.Errorf("a categorical feature has \"categories\", not \"levels\"")
		}
		if len(f.Categories) < 2 {
			return fmt.Errorf("a categorical feature needs at least 2 categories, has %d", len(f.Categories))
		}
		if f.Min != nil || f.Max != nil {
			return fmt.Errorf("a categorical feature has no min or max")
		}
		if m := f.Mutability(); m == MutableIncrease || m == MutableDecrease {
			return fmt.Errorf("a categorical feature cannot be %q-only (its categories have no order; use an ordinal feature)", m)
		}
		return distinct("category", f.Categories)
	case Ordinal:
		if f.Categories != nil {
			return fmt.Errorf("an ordinal feature has \"levels\", not \"categories\"")
		}
		if len(f.Levels) < 2 {
			return fmt.Errorf("an ordinal feature needs at least 2 levels, has %d", len(f.Levels))
		}
		for _, b := range []*float64{f.Min, f.Max} {
			if b != nil && (*b < 0 || *b > float64(len(f.Levels)-1) || *b != math.Trunc(*b)) {
				return fmt.Errorf("bound %v is not a level index (0 … %d)", *b, len(f.Levels)-1)
			}
		}
		return distinct("level", f.Levels)
	case "":
		return fmt.Errorf("no \"type\" (want numeric, categorical or ordinal)")
	default:
		return fmt.Errorf("unknown type %q (want numeric, categorical or ordinal)", f.Type)
	}
	return nil
}

func distinct(what string, values []string) error {
	seen := map[string]bool{}
	for _, v := range values {
		if seen[v] {
			return markf(ErrSchema, "%s %q is listed twice", what, v)
		}
		seen[v] = true
	}
	return nil
}

// Width is D, the number of model inputs: the features' widths summed.
func (s *Schema) Width() int {
	d := 0
	for _, f := range s.Features {
		d += f.Width()
	}
	return d
}

// Columns names the model's D inputs: a numeric or ordinal feature's name, and "name=category" for each
// input of a categorical feature's one-hot group.
func (s *Schema) Columns() []string {
	var out []string
	for _, f := range s.Features {
		if f.Type == Categorical {
			for _, c := range f.Categories {
				out = append(out, f.Name+"="+c)
			}
		} else {
			out = append(out, f.Name)
		}
	}
	return out
}

// Offsets returns, for each feature, the index of its first model input.
func (s *Schema) Offsets() []int {
	out := make([]int, len(s.Features))
	o := 0
	for i, f := range s.Features {
		out[i] = o
		o += f.Width()
	}
	return out
}

// OneHotGroups returns the model inputs of each categorical feature's one-hot group, in schema order.
func (s *Schema) OneHotGroups() [][]int {
	var out [][]int
	for i, o := range s.Offsets() {
		if f := s.Features[i]; f.Type == Categorical {
			g := make([]int, f.Width())
			for j := range g {
				g[j] = o + j
			}
			out = append(out, g)
		}
	}
	return out
}

// InputMutability returns each model input's constraint (a one-hot group's inputs share their feature's).
func (s *Schema) InputMutability() []Mutable {
	var out []Mutable
	for _, f := range s.Features {
		for range f.Width() {
			out = append(out, f.Mutability())
		}
	}
	return out
}

// encodeField writes feature f's value v (a CSV field) into the model inputs dst (f.Width() values).
func (f SchemaFeature) encodeField(v string, dst []float32) error {
	v = strings.TrimSpace(v)
	switch f.Type {
	case Categorical:
		i := slices.Index(f.Categories, v)
		if i < 0 {
			return fmt.Errorf("unknown category %q (the schema's: %s)", v, strings.Join(f.Categories, ", "))
		}
		clear(dst)
		dst[i] = 1
	case Ordinal:
		i := slices.Index(f.Levels, v)
		if i < 0 {
			return fmt.Errorf("unknown level %q (the schema's: %s)", v, strings.Join(f.Levels, ", "))
		}
		dst[0] = float32(i)
	default:
		x, err := strconv.ParseFloat(v, 64)
		if errors.Is(err, strconv.ErrRange) && math.IsInf(x, 0) {
			err = nil // beyond float64: refused below as beyond float32
		}
		if err != nil {
			return fmt.Errorf("%q is not a number", v)
		}
		if math.IsNaN(x) || (math.IsInf(x, 0) && !isNumberBeyond(v)) {
			return fmt.Errorf("%q is not a finite number", v)
		}
		if math.Abs(x) > math.MaxFloat32 {
			return fmt.Errorf("%q is beyond the range of the model's 32-bit floats (±3.4e38)", v)
		}
		dst[0] = float32(x)
	}
	return nil
}

// isNumberBeyond reports whether v is a decimal number (not "Inf" or "Infinity"), which ParseFloat read as
// ±Inf only because it is beyond float64.
func isNumberBeyond(v string) bool {
	return strings.ContainsAny(v, "0123456789")
}

// DecodeRow turns one row of model inputs (D values) into the CSV's fields, one per feature in schema
// order: a number as the shortest decimal that reads back as the same float32, a category by its name
// (the group's largest input), an ordinal level by its name (the index rounded and clamped to the levels).
func (s *Schema) DecodeRow(x []float32) []string {
	out := make([]string, len(s.Features))
	offs := s.Offsets()
	for i, f := range s.Features {
		v := x[offs[i] : offs[i]+f.Width()]
		switch f.Type {
		case Categorical:
			best := 0
			for j := range v {
				if v[j] > v[best] {
					best = j
				}
			}
			out[i] = f.Categories[best]
		case Ordinal:
			out[i] = f.Levels[levelIndex(v[0], len(f.Levels))]
		default:
			out[i] = strconv.FormatFloat(float64(v[0]), 'g', -1, 32)
		}
	}
	return out
}

func levelIndex(v float32, n int) int {
	return int(min(max(math.Round(float64(v)), 0), float64(n-1)))
}

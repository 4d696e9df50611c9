package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
)

// Generator is a generator as the experiment layer runs it: one of the paper's (Paper, by name), with
// some of the data set's hyper-parameters overridden (Set), or a user's own (Build). A benchmark, an
// explanation or a λ sweep takes a list of these.
//
//	experiment.Generator{Name: "ECCCo"}                                        // the paper's
//	experiment.Generator{Name: "ECCCo λE=1", Paper: "ECCCo", Set: experiment.Tuning{Energy: new(1.0)}}
//	experiment.Generator{Name: "mine", Build: func(in counterfactual.Ingredients, p counterfactual.Params) (*counterfactual.Generator, error) { … }}
type Generator struct {
	// Name labels the generator's results; names in a list must differ (case-insensitively).
	Name string
	// Paper is the paper generator it derives from (catalogue.Names, any spelling catalogue.Lookup accepts);
	// "" means Name.
	Paper string
	// Set overrides hyper-parameters of the data set's paper setting (table_gen_params.tex).
	Set Tuning
	// Build, when set, makes the generator from the run's ingredients and the (overridden) parameters
	// instead of the paper's constructor; Paper then only names whose ingredients to prepare ("" prepares
	// the calibration alone).
	Build func(in counterfactual.Ingredients, p counterfactual.Params) (*counterfactual.Generator, error)
}

// Tuning overrides some of the generators' hyper-parameters of a data set's paper setting
// (table_gen_params.tex, counterfactual.Params): a nil field keeps the data set's value. Each field has
// a key, that of --set (ParamKeys; ParseSet reads them).
type Tuning struct {
	// Step is η ("step"); it must be positive.
	Step *float64
	// Cost, SetSize and Energy are λ_cost, λ_setsize and λ_energy, also ECCCo-L1's sample weight
	// ("cost", "setsize", "energy"); Ridge is the weight on E² ("ridge").
	Cost, SetSize, Energy, Ridge *float64
	// DecayRate and DecayEvery are the authors' decay of the energy penalty over the steps
	// (counterfactual.Params.DecayRate; none by default): "decay-rate" and "decay-every" (≥ 1).
	DecayRate  *float64
	DecayEvery *int

	// given are the items as ParseSet read them ("key=value", in the order given), for the names
	// WithOverrides gives.
	given []string
}

// ParamKeys are the keys of Tuning's fields, those --set accepts for the generators.
func ParamKeys() []string {
	return []string{"step", "cost", "setsize", "energy", "ridge", "decay-rate", "decay-every"}
}

// field returns the field of Tuning a key names: a float or, for decay-every, an int; both nil for an
// unknown key.
func (t *Tuning) field(key string) (**float64, **int) {
	switch key {
	case "step":
		return &t.Step, nil
	case "cost":
		return &t.Cost, nil
	case "setsize":
		return &t.SetSize, nil
	case "energy":
		return &t.Energy, nil
	case "ridge":
		return &t.Ridge, nil
	case "decay-rate":
		return &t.DecayRate, nil
	case "decay-every":
		return nil, &t.DecayEvery
	}
	return nil, nil
}

// tuned is one field of a Tuning that is set: its key and value.
type tuned struct {
	key string
	v   float64
}

// entries returns the fields that are set, sorted by key.
func (t Tuning) entries() []tuned {
	var out []tuned
	for _, k := range slices.Sorted(slices.Values(ParamKeys())) {
		if f, i := t.field(k); f != nil && *f != nil {
			out = append(out, tuned{k, **f})
		} else if i != nil && *i != nil {
			out = append(out, tuned{k, float64(**i)})
		}
	}
	return out
}

// items are the set fields as "key=value": as ParseSet read them, in the order given, or else sorted by
// key.
func (t Tuning) items() (keys, items []string) {
	if len(t.given) > 0 {
		for _, kv := range t.given {
			k, _, _ := strings.Cut(kv, "=")
			keys = append(keys, k)
		}
		return keys, t.given
	}
	for _, e := range t.entries() {
		keys = append(keys, e.key)
		items = append(items, e.key+"="+strconv.FormatFloat(e.v, 'g', -1, 64))
	}
	return keys, items
}

// copyField sets the field key of to to that of t.
func (t Tuning) copyField(key string, to *Tuning) {
	f, i := t.field(key)
	g, j := to.field(key)
	if f != nil {
		*g = *f
	} else if i != nil {
		*j = *i
	}
}

// check validates the value v of key for the generator named name.
func check(name, key string, v float64) error {
	if !(v >= 0) || v > 1e300 {
		return fmt.Errorf("%w: generator %s: %s = %v must be a non-negative number", ErrInvalid, name, key, v)
	}
	switch key {
	case "step":
		if v == 0 {
			return fmt.Errorf("%w: generator %s: the step η must be positive", ErrInvalid, name)
		}
	case "decay-every":
		if v != float64(int(v)) || v < 1 {
			return fmt.Errorf("%w: generator %s: decay-every = %v must be a whole number ≥ 1", ErrInvalid, name, v)
		}
	}
	return nil
}

// set reads item key=v (text as given) into t, checked as check does for the generator named name.
func (t *Tuning) set(name, key string, v float64, text string) error {
	f, i := t.field(key)
	if f == nil && i == nil {
		return fmt.Errorf("%w: generator %s: unknown parameter %q (known: %s)", ErrInvalid, name, key, strings.Join(ParamKeys(), ", "))
	}
	if err := check(name, key, v); err != nil {
		return err
	}
	if f != nil {
		*f = &v
	} else {
		n := int(v)
		*i = &n
	}
	t.given = append(t.given, text)
	return nil
}

// paper returns the canonical paper name the generator derives from ("" for a custom one without it).
func (g Generator) paper() (string, error) {
	name := g.Paper
	if name == "" {
		if g.Build != nil {
			return "", nil
		}
		name = g.Name
	}
	c, err := catalogue.Canonical(name)
	return string(c), err
}

// Params returns p with the generator's overrides applied; negative or non-finite values, a zero step
// and a decay-every below 1 are ErrInvalid.
func (g Generator) Params(p counterfactual.Params) (counterfactual.Params, error) {
	for _, e := range g.Set.entries() {
		if err := check(g.Name, e.key, e.v); err != nil {
			return p, err
		}
	}
	t := g.Set
	if t.Step != nil {
		p.StepSize = *t.Step
	}
	if t.Cost != nil {
		p.Cost = *t.Cost
	}
	if t.SetSize != nil {
		p.SetSize = *t.SetSize
	}
	if t.Energy != nil {
		p.Energy = *t.Energy
	}
	if t.Ridge != nil {
		p.Ridge = *t.Ridge
	}
	if t.DecayRate != nil {
		p.DecayRate = *t.DecayRate
	}
	if t.DecayEvery != nil {
		p.DecayEvery = *t.DecayEvery
	}
	return p, nil
}

// Describe is a stable one-line description of what the generator computes (its paper base and
// overrides), recorded with benchmark results so that a resumed run cannot mix two definitions under one
// name. A custom Build is described by its name only.
func (g Generator) Describe() string {
	base, err := g.paper()
	if err != nil {
		base = "?" + g.Paper
	}
	var sb strings.Builder
	if g.Build != nil {
		sb.WriteString("custom")
		if base != "" {
			sb.WriteString(" with the ingredients of " + base)
		}
	} else {
		sb.WriteString(base)
	}
	for _, e := range g.Set.entries() {
		sb.WriteString(" " + e.key + "=" + strconv.FormatFloat(e.v, 'g', -1, 64))
	}
	return sb.String()
}

// Validate checks the generator's name, base and overrides.
func (g Generator) Validate() error {
	if strings.TrimSpace(g.Name) == "" {
		return fmt.Errorf("%w: a generator needs a name", ErrInvalid)
	}
	if _, err := g.paper(); err != nil {
		return fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	_, err := g.Params(counterfactual.Params{StepSize: 1})
	return err
}

// PaperGenerators returns the paper's generators by their canonical names, in the order of its tables.
func PaperGenerators() []Generator {
	var out []Generator
	for _, n := range catalogue.Strings() {
		out = append(out, Generator{Name: n})
	}
	return out
}

// ParseGenerators turns a list of names into the paper's generators: names are matched
// case-insensitively and in any accepted spelling and stored under their canonical names; an unknown or
// repeated name is ErrInvalid.
func ParseGenerators(names ...string) ([]Generator, error) {
	var out []Generator
	typed := map[catalogue.Name]string{} // each generator's spelling as given, to name both of a pair
	for _, n := range names {
		c, err := catalogue.Canonical(n)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		if prev, ok := typed[c]; ok {
			return nil, fmt.Errorf("%w: generator %q is listed twice (as %q and %q)", ErrInvalid, c, prev, strings.TrimSpace(n))
		}
		typed[c] = strings.TrimSpace(n)
		out = append(out, Generator{Name: string(c)})
	}
	return out, CheckGenerators(out)
}

// CheckGenerators validates every generator of a list and rejects a list in which two share a name
// (case-insensitively), which would give duplicated results.
func CheckGenerators(gens []Generator) error {
	if len(gens) == 0 {
		return fmt.Errorf("%w: no generators", ErrInvalid)
	}
	seen := map[string]string{}
	for _, g := range gens {
		if err := g.Validate(); err != nil {
			return err
		}
		key := strings.ToLower(strings.TrimSpace(g.Name))
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("%w: generator %q is listed twice (as %q and %q)", ErrInvalid, g.Name, prev, g.Name)
		}
		seen[key] = g.Name
	}
	return nil
}

// Reads reports whether the generator has the term (or step) that a Generator.Set key overrides: a
// paper generator reads the keys of the penalties it builds (catalogue.Generator.Params); a custom one
// (Build) all of them.
func (g Generator) Reads(key string) bool {
	if g.Build != nil {
		return true
	}
	base, err := g.paper()
	if err != nil {
		return false
	}
	if base == "" {
		return true
	}
	c, err := catalogue.LookupGenerator(base)
	return err != nil || c.Reads(key)
}

// WithOverrides applies the overrides t (ParseSet's Overrides.Generator) to every generator that has the
// term (Generator.Reads) and names each changed one "NAME [k=v …]" with the items it took, so that an
// ablation's units never mix with the paper generator's; a generator none of the items applies to keeps
// its name and definition. An item that no generator of the list reads is ErrInvalid. No overrides
// return gens as they are.
func WithOverrides(gens []Generator, t Tuning) ([]Generator, error) {
	keys, items := t.items()
	if len(keys) == 0 {
		return gens, nil
	}
	used := map[string]bool{}
	out := make([]Generator, len(gens))
	for i, g := range gens {
		var took []string
		var mine Tuning
		for j, k := range keys {
			if g.Reads(k) {
				t.copyField(k, &mine)
				took = append(took, items[j])
				used[k] = true
			}
		}
		if len(took) > 0 {
			g.Paper, g.Set = g.Name, mine
			g.Name = fmt.Sprintf("%s [%s]", g.Name, strings.Join(took, " "))
		}
		out[i] = g
	}
	for _, k := range keys {
		if !used[k] {
			var names []string
			for _, g := range gens {
				names = append(names, g.Name)
			}
			return nil, fmt.Errorf("%w: --set %s: none of the generators (%s) has that term", ErrInvalid, k, strings.Join(names, ", "))
		}
	}
	return out, CheckGenerators(out)
}

package experiment

import (
	"fmt"
	"maps"
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
//	experiment.Generator{Name: "ECCCo λE=1", Paper: "ECCCo", Set: map[string]float64{"energy": 1}}
//	experiment.Generator{Name: "mine", Build: func(in counterfactual.Ingredients, p counterfactual.Params) (*counterfactual.Generator, error) { … }}
type Generator struct {
	// Name labels the generator's results; names in a list must differ (case-insensitively).
	Name string
	// Paper is the paper generator it derives from (catalogue.Names, any spelling catalogue.Lookup accepts);
	// "" means Name.
	Paper string
	// Set overrides hyper-parameters of the data set's paper setting (table_gen_params.tex) by key:
	// "step" (η), "cost" (λ_cost), "setsize" (λ_setsize), "energy" (λ_energy, also ECCCo-L1's sample
	// weight), "ridge" (the weight on E²) and "decay-rate" and "decay-every" (the authors' decay of the
	// energy penalty over the steps, counterfactual.Params.DecayRate; none by default).
	Set map[string]float64
	// Build, when set, makes the generator from the run's ingredients and the (overridden) parameters
	// instead of the paper's constructor; Paper then only names whose ingredients to prepare ("" prepares
	// the calibration alone).
	Build func(in counterfactual.Ingredients, p counterfactual.Params) (*counterfactual.Generator, error)
}

// ParamKeys are the keys Generator.Set accepts.
func ParamKeys() []string {
	return []string{"step", "cost", "setsize", "energy", "ridge", "decay-rate", "decay-every"}
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

// Params returns p with the generator's overrides applied; unknown keys and negative or non-finite values
// are ErrInvalid.
func (g Generator) Params(p counterfactual.Params) (counterfactual.Params, error) {
	for _, k := range slices.Sorted(maps.Keys(g.Set)) {
		v := g.Set[k]
		if !(v >= 0) || v > 1e300 {
			return p, fmt.Errorf("%w: generator %s: %s = %v must be a non-negative number", ErrInvalid, g.Name, k, v)
		}
		switch strings.ToLower(k) {
		case "step", "eta", "η":
			if v == 0 {
				return p, fmt.Errorf("%w: generator %s: the step η must be positive", ErrInvalid, g.Name)
			}
			p.StepSize = v
		case "cost", "lambda-cost":
			p.Cost = v
		case "setsize", "set-size", "lambda-setsize":
			p.SetSize = v
		case "energy", "lambda-energy":
			p.Energy = v
		case "ridge":
			p.Ridge = v
		case "decay-rate":
			p.DecayRate = v
		case "decay-every":
			if v != float64(int(v)) || v < 1 {
				return p, fmt.Errorf("%w: generator %s: decay-every = %v must be a whole number ≥ 1", ErrInvalid, g.Name, v)
			}
			p.DecayEvery = int(v)
		default:
			return p, fmt.Errorf("%w: generator %s: unknown parameter %q (known: %s)", ErrInvalid, g.Name, k, strings.Join(ParamKeys(), ", "))
		}
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
	for _, k := range slices.Sorted(maps.Keys(g.Set)) {
		sb.WriteString(" " + k + "=" + strconv.FormatFloat(g.Set[k], 'g', -1, 64))
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
	for _, n := range names {
		c, err := catalogue.Canonical(n)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
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

// WithOverrides applies "key=value" items (numbers; keys ParamKeys) to every generator that has the
// term (Generator.Reads) and names each changed one "NAME [k=v …]" with the items it took, so that an
// ablation's units never mix with the paper generator's; a generator none of the items applies to keeps
// its name and definition. An item that no generator of the list reads is ErrInvalid.
func WithOverrides(gens []Generator, items []string) ([]Generator, error) {
	set := map[string]float64{}
	var keys []string
	for _, kv := range items {
		k, v, ok := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("%w: --set %q: want key=number", ErrInvalid, kv)
		}
		k = strings.TrimSpace(k)
		set[k] = f
		keys = append(keys, k)
	}
	used := map[string]bool{}
	out := make([]Generator, len(gens))
	for i, g := range gens {
		var took []string
		mine := map[string]float64{}
		for j, k := range keys {
			if g.Reads(k) {
				mine[k] = set[k]
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

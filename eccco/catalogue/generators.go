package catalogue

import (
	"fmt"
	"slices"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
)

// Name is a generator's name as the paper's tables list it.
type Name string

// The paper's generators (Altmeyer et al., AAAI-24, Tables 1–2 and the appendix's Tables 5–8).
const (
	ECCCo        Name = "ECCCo"
	ECCCoPlus    Name = "ECCCo+"
	ECCCoNoCP    Name = "ECCCo (no CP)"
	ECCCoNoEBM   Name = "ECCCo (no EBM)"
	ECCCoL1      Name = "ECCCo-L1"
	ECCCoL1NoCP  Name = "ECCCo-L1 (no CP)"
	ECCCoL1NoEBM Name = "ECCCo-L1 (no EBM)"
	REVISE       Name = "REVISE"
	Schut        Name = "Schut"
	Wachter      Name = "Wachter"
)

// String returns the name.
func (n Name) String() string { return string(n) }

// Generator is one generator of the paper: its name, the other spellings LookupGenerator accepts and its
// declaration (penalties, latent space, search rule), from which its needs and the hyper-parameters it
// reads follow.
type Generator struct {
	Name Name
	// Aliases are the spellings accepted besides Name, lower-case without spaces: LookupGenerator compares
	// a spelling with them and with Name after lower-casing it and dropping its spaces.
	Aliases []string
	spec    counterfactual.Spec
}

// The penalties, by short names for the table.
const (
	cost    = counterfactual.PenaltyCost
	energyT = counterfactual.PenaltyEnergy
	setSize = counterfactual.PenaltySetSize
	samples = counterfactual.PenaltySamples
)

// generators are the paper's generators in the order of its tables. The objectives: Wachter et al. (2017)
// yloss + λ_cost·‖x′ − x‖₁; Schut et al. (2021) yloss alone with greedy JSMA steps of η, each feature
// changed at most round(1/η) times; REVISE (Joshi et al., 2019) Wachter's objective over a VAE's latent
// space; ECCCo the paper's Eq. "eccco", yloss + λ_cost·‖x′ − x‖₁ + λ_energy·(E(x′|y⁺) + ridge·E²) +
// λ_setsize·Ω(C_θ(x′; α)); ECCCo+ ECCCo over a PCA space; the ablations drop Ω (no CP) or E (no EBM);
// ECCCo-L1 (appendix, Algorithm 3) replaces E by the L1 distance to SGLD samples of the target class.
var generators = []Generator{
	{ECCCo, nil, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost, energyT, setSize}}},
	{ECCCoPlus, []string{"ecccoplus", "eccco-plus"}, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost, energyT, setSize}, Latent: counterfactual.LatentPCA}},
	{ECCCoNoCP, []string{"eccco-no-cp", "no-cp", "nocp"}, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost, energyT}}},
	{ECCCoNoEBM, []string{"eccco-no-ebm", "no-ebm", "noebm"}, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost, setSize}}},
	{ECCCoL1, []string{"ecccol1", "l1"}, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost, samples, setSize}}},
	{ECCCoL1NoCP, []string{"eccco-l1-no-cp"}, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost, samples}}},
	// The same objective as ECCCo (no EBM), kept under its own name because the paper's tables report both.
	{ECCCoL1NoEBM, []string{"eccco-l1-no-ebm"}, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost, setSize}, AuthorsSamples: true}},
	{REVISE, nil, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost}, Latent: counterfactual.LatentVAE}},
	{Schut, nil, counterfactual.Spec{Update: counterfactual.GreedyJSMA}},
	{Wachter, nil, counterfactual.Spec{Penalties: []counterfactual.PenaltyKind{cost}, WeightedCost: true}},
}

// Generators returns the paper's generators in the order of its tables.
func Generators() []Generator { return append([]Generator(nil), generators...) }

// Names returns the paper's generators' names in the order of its tables.
func Names() []Name {
	out := make([]Name, len(generators))
	for i, g := range generators {
		out[i] = g.Name
	}
	return out
}

// Strings returns Names as strings.
func Strings() []string {
	out := make([]string, len(generators))
	for i, g := range generators {
		out[i] = string(g.Name)
	}
	return out
}

// LookupGenerator returns the generator a spelling names: its Name or one of its Aliases, matched after
// lower-casing and dropping spaces ("eccco-plus" → ECCCo+, "No CP" → ECCCo (no CP)).
func LookupGenerator(name string) (Generator, error) {
	key := normalise(name)
	for _, g := range generators {
		if normalise(string(g.Name)) == key {
			return g, nil
		}
		if slices.Contains(g.Aliases, key) {
			return g, nil
		}
	}
	return Generator{}, fmt.Errorf("unknown generator %q (known: %s)", name, strings.Join(Strings(), ", "))
}

// Canonical returns the name under which the paper's tables list the generator a spelling names (LookupGenerator).
func Canonical(name string) (Name, error) {
	g, err := LookupGenerator(name)
	return g.Name, err
}

// Spec returns the generator's declaration, named.
func (g Generator) Spec() counterfactual.Spec {
	s := g.spec
	s.Name = string(g.Name)
	s.Penalties = append([]counterfactual.PenaltyKind(nil), s.Penalties...)
	return s
}

// Needs returns the optional ingredients the generator reads in the paper's setting (Spec.Needs).
func (g Generator) Needs() counterfactual.Needs { return g.spec.Needs() }

// ReadsSamples reports whether the generator's search may read SGLD samples, in the paper's setting or
// the authors' code (the ECCCo-L1 family).
func (g Generator) ReadsSamples() bool { return g.spec.ReadsSamples() }

// Params lists the hyper-parameters the generator reads, by the keys of experiment.Generator.Set: the
// step η ("step") always, and each penalty's weight and settings ("cost"; "energy" with "ridge",
// "decay-rate" and "decay-every"; "setsize"; the samples' weight is "energy" too).
func (g Generator) Params() []string {
	keys := []string{"step"}
	add := func(k ...string) {
		for _, k := range k {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	for _, p := range g.spec.Penalties {
		switch p {
		case cost:
			add("cost")
		case energyT:
			add("energy", "ridge", "decay-rate", "decay-every")
		case setSize:
			add("setsize")
		case samples:
			add("energy")
		}
	}
	return keys
}

// Reads reports whether the generator reads the hyper-parameter key (Params).
func (g Generator) Reads(key string) bool { return slices.Contains(g.Params(), key) }

// NeedsOf returns what the generators a list names need together (Generator.Needs).
func NeedsOf(names ...string) (counterfactual.Needs, error) {
	var n counterfactual.Needs
	for _, name := range names {
		g, err := LookupGenerator(name)
		if err != nil {
			return n, err
		}
		n = n.Or(g.Needs())
	}
	return n, nil
}

// ByName builds a generator of the paper by any spelling LookupGenerator accepts (counterfactual.Build of its
// Spec), checking that the ingredients it needs are there.
func ByName(name string, p counterfactual.Params, in counterfactual.Ingredients) (*counterfactual.Generator, error) {
	g, err := LookupGenerator(name)
	if err != nil {
		return nil, err
	}
	return counterfactual.Build(g.Spec(), p, in)
}

// GraphKey is what the graphs of ByName(name, p, in) bake in (counterfactual.Spec.GraphKey); nil for an
// unknown name.
func GraphKey(name string, p counterfactual.Params, in counterfactual.Ingredients) any {
	g, err := LookupGenerator(name)
	if err != nil {
		return nil
	}
	return g.Spec().GraphKey(p, in)
}

func normalise(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "")
}

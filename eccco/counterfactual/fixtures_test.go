package counterfactual

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/energy"
)

// paperSpecs are the paper's ten objectives as these tests write them from its equations (Eq. 1, Eq.
// "eccco", the appendix's Algorithm 3), in the order of its tables: the engine's fixtures. Package
// catalogue declares the same generators for the program; its tests compare the two.
var paperSpecs = []Spec{
	{Name: "ECCCo", Penalties: []PenaltyKind{PenaltyCost, PenaltyEnergy, PenaltySetSize}},
	{Name: "ECCCo+", Penalties: []PenaltyKind{PenaltyCost, PenaltyEnergy, PenaltySetSize}, Latent: LatentPCA},
	{Name: "ECCCo (no CP)", Penalties: []PenaltyKind{PenaltyCost, PenaltyEnergy}},
	{Name: "ECCCo (no EBM)", Penalties: []PenaltyKind{PenaltyCost, PenaltySetSize}},
	{Name: "ECCCo-L1", Penalties: []PenaltyKind{PenaltyCost, PenaltySamples, PenaltySetSize}},
	{Name: "ECCCo-L1 (no CP)", Penalties: []PenaltyKind{PenaltyCost, PenaltySamples}},
	{Name: "ECCCo-L1 (no EBM)", Penalties: []PenaltyKind{PenaltyCost, PenaltySetSize}, AuthorsSamples: true},
	{Name: "REVISE", Penalties: []PenaltyKind{PenaltyCost}, Latent: LatentVAE},
	{Name: "Schut", Update: GreedyJSMA},
	{Name: "Wachter", Penalties: []PenaltyKind{PenaltyCost}, WeightedCost: true},
}

// paperNames lists paperSpecs' names.
func paperNames() []string {
	var out []string
	for _, s := range paperSpecs {
		out = append(out, s.Name)
	}
	return out
}

// paperSpec returns the fixture of a name as paperSpecs spell it.
func paperSpec(name string) Spec {
	for _, s := range paperSpecs {
		if s.Name == name {
			return s
		}
	}
	panic(fmt.Sprintf("no fixture %q", name))
}

// paperGenerator builds a fixture by name.
func paperGenerator(name string, p Params, in Ingredients) (*Generator, error) {
	return Build(paperSpec(name), p, in)
}

// mustBuild builds a fixture whose ingredients are known to be there.
func mustBuild(name string, p Params, in Ingredients) *Generator {
	g, err := paperGenerator(name, p, in)
	if err != nil {
		panic(err)
	}
	return g
}

func Wachter(p Params) *Generator { return mustBuild("Wachter", p, Ingredients{}) }
func Schut(p Params) *Generator   { return mustBuild("Schut", p, Ingredients{}) }
func REVISE(p Params, vae LatentMap) *Generator {
	return mustBuild("REVISE", p, Ingredients{VAE: vae})
}
func ECCCo(p Params, c *conformal.Calibrated) *Generator {
	return mustBuild("ECCCo", p, Ingredients{Calibrated: c})
}
func ECCCoPlus(p Params, c *conformal.Calibrated, pca *PCA) *Generator {
	return mustBuild("ECCCo+", p, Ingredients{Calibrated: c, PCA: pca})
}
func ECCCoNoCP(p Params) *Generator { return mustBuild("ECCCo (no CP)", p, Ingredients{}) }
func ECCCoL1(p Params, c *conformal.Calibrated, ts *energy.TargetSamples) *Generator {
	return mustBuild("ECCCo-L1", p, Ingredients{Calibrated: c, Samples: ts})
}
func ECCCoL1NoCP(p Params, ts *energy.TargetSamples) *Generator {
	return mustBuild("ECCCo-L1 (no CP)", p, Ingredients{Samples: ts})
}

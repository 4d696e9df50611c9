package counterfactual

import (
	"fmt"
	"math"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Spec declares a generator of the paper's family as data: its penalties, latent space and update rule.
// Build turns it into a Generator for a data set's Params and a run's Ingredients. Package catalogue
// holds the paper's ten Specs.
type Spec struct {
	// Name is the generator's name in results.
	Name string
	// Penalties are the terms added to the loss, in the order summed.
	Penalties []PenaltyKind
	// Latent is the space searched.
	Latent LatentKind
	// Update is the rule of one step.
	Update Update
	// WeightedCost lets Ingredients.MADWeights, when given, weight the cost penalty (Wachter's).
	WeightedCost bool
	// AuthorsSamples appends, under Ingredients.AuthorsCode and when Ingredients.Samples are given, a
	// distance to the samples with weight 0 (ECCCo-L1 (no EBM): the authors' code evaluated every penalty,
	// λ = 0 or not, CE.jl src/generators/complexity.jl:55).
	AuthorsSamples bool
}

// PenaltyKind is one term of the paper's objective (Eq. 1) with the Params weight it takes.
type PenaltyKind int

const (
	// PenaltyCost is "cost": λ_cost·‖x′ − x‖₁ (L1Cost; WeightedL1Cost under Spec.WeightedCost).
	PenaltyCost PenaltyKind = iota + 1
	// PenaltyEnergy is "energy": λ_energy·(E(x′|y⁺) + ridge·E²) (EnergyPenalty; decayed by
	// Params.DecayRate, DecayedEnergyPenalty). It reads Params.Energy, Ridge, DecayRate and DecayEvery.
	PenaltyEnergy
	// PenaltySetSize is "setsize": λ_setsize·Ω(C_θ(x′; α)) (SetSizePenalty); it needs
	// Ingredients.Calibrated.
	PenaltySetSize
	// PenaltySamples is "samples": λ_energy·mean ‖x′ − s‖₁ over the SGLD samples s of the target class
	// (DistanceToSamples; appendix, Algorithm 3); it needs Ingredients.Samples.
	PenaltySamples
)

// LatentKind is the space a generator searches: x′ itself or x′ = f(z).
type LatentKind int

const (
	// LatentNone searches feature space.
	LatentNone LatentKind = iota
	// LatentVAE searches the latent space of Ingredients.VAE (REVISE; Resampled under
	// Ingredients.ResampleLatent).
	LatentVAE
	// LatentPCA searches the space of Ingredients.PCA (ECCCo+; Reencoded under Ingredients.AuthorsCode).
	LatentPCA
)

// Update is a generator's rule for one step.
type Update int

const (
	// GradientDescent is z ← z − η·∇_z objective.
	GradientDescent Update = iota
	// GreedyJSMA is Schut et al.'s update (JSMA): one feature per step (bounds-blind under
	// Ingredients.AuthorsCode, JSMA.BoundsBlind).
	GreedyJSMA
)

// Needs are the optional ingredients a Spec reads.
type Needs struct {
	// Calibrated is the conformally calibrated classifier (PenaltySetSize).
	Calibrated bool
	// Samples are SGLD samples per class (PenaltySamples).
	Samples bool
	// PCA is ECCCo+'s map (LatentPCA).
	PCA bool
	// VAE is REVISE's map (LatentVAE).
	VAE bool
}

// Or returns the ingredients either needs.
func (n Needs) Or(o Needs) Needs {
	return Needs{Calibrated: n.Calibrated || o.Calibrated, Samples: n.Samples || o.Samples, PCA: n.PCA || o.PCA, VAE: n.VAE || o.VAE}
}

// Has reports whether the spec sums the penalty.
func (s Spec) Has(k PenaltyKind) bool {
	for _, p := range s.Penalties {
		if p == k {
			return true
		}
	}
	return false
}

// Needs returns the ingredients Build reads for the spec, without the authors' code (AuthorsSamples reads
// samples only when given).
func (s Spec) Needs() Needs {
	return Needs{Calibrated: s.Has(PenaltySetSize), Samples: s.Has(PenaltySamples), PCA: s.Latent == LatentPCA, VAE: s.Latent == LatentVAE}
}

// ReadsSamples reports whether the spec's graphs may read Ingredients.Samples, in either mode.
func (s Spec) ReadsSamples() bool { return s.Has(PenaltySamples) || s.AuthorsSamples }

// needsText names the ingredients n in Build's error.
func (n Needs) text() string {
	switch {
	case n.VAE:
		return "a VAE (eccco vae --data D)"
	case n.Calibrated && n.PCA:
		return "a calibrated classifier and a PCA"
	case n.Calibrated && n.Samples:
		return "a calibrated classifier and SGLD samples per class"
	case n.Calibrated:
		return "a conformally calibrated classifier"
	case n.Samples:
		return "SGLD samples per class"
	}
	return ""
}

// Build makes the generator the spec declares with the hyper-parameters p, checking that in holds what it
// needs (Spec.Needs). Under in.AuthorsCode the terms follow the authors' code (see Ingredients.AuthorsCode).
func Build(s Spec, p Params, in Ingredients) (*Generator, error) {
	n := s.Needs()
	if (n.Calibrated && in.Calibrated == nil) || (n.Samples && in.Samples == nil) || (n.PCA && in.PCA == nil) || (n.VAE && in.VAE == nil) {
		return nil, fmt.Errorf("generator %s needs %s", s.Name, n.text())
	}
	g := &Generator{Name: s.Name, StepSize: p.StepSize}
	for _, k := range s.Penalties {
		switch k {
		case PenaltyCost:
			pen := Penalty{Name: "cost", Weight: p.Cost, Term: L1Cost}
			if s.WeightedCost && len(in.MADWeights) > 0 {
				pen.Term = WeightedL1Cost(in.MADWeights)
			}
			g.Penalties = append(g.Penalties, pen)
		case PenaltyEnergy:
			g.Penalties = append(g.Penalties, energyPenalty(p))
			g.Stepwise = p.DecayRate > 0
		case PenaltySetSize:
			g.Penalties = append(g.Penalties, Penalty{Name: "setsize", Weight: p.SetSize, Term: SetSizePenalty(in.Calibrated, in.AuthorsCode)})
		case PenaltySamples:
			g.Penalties = append(g.Penalties, samplesPenalty(p.Energy, in.Samples, in.AuthorsCode))
		default:
			return nil, fmt.Errorf("generator %s: unknown penalty kind %d", s.Name, k)
		}
	}
	if s.AuthorsSamples && in.AuthorsCode && in.Samples != nil {
		g.Penalties = append(g.Penalties, samplesPenalty(0, in.Samples, true))
	}
	switch s.Latent {
	case LatentNone:
	case LatentVAE:
		g.Latent = in.VAE
		if in.ResampleLatent {
			post, ok := in.VAE.(Posterior)
			if !ok {
				return nil, fmt.Errorf("generator %s needs a VAE with a posterior (EncodeGraph) to resample its codes", s.Name)
			}
			g.Latent = Resampled{post}
		}
	case LatentPCA:
		g.Latent = in.PCA
		if in.AuthorsCode {
			g.Latent = Reencoded{in.PCA}
		}
	default:
		return nil, fmt.Errorf("generator %s: unknown latent kind %d", s.Name, s.Latent)
	}
	switch s.Update {
	case GradientDescent:
	case GreedyJSMA:
		g.JSMA = &JSMA{BoundsBlind: in.AuthorsCode}
	default:
		return nil, fmt.Errorf("generator %s: unknown update %d", s.Name, s.Update)
	}
	return g, g.Validate()
}

// energyPenalty is ECCCo's energy term with its weight, decayed when p.DecayRate > 0 (the penalty's name
// then says how, so that generators with other decays never share a compiled step).
func energyPenalty(p Params) Penalty {
	if p.DecayRate > 0 {
		every := max(p.DecayEvery, 1)
		return Penalty{Name: fmt.Sprintf("energy (decay %g every %d)", p.DecayRate, every), Weight: p.Energy, Term: DecayedEnergyPenalty(p.Ridge, p.DecayRate, every)}
	}
	return Penalty{Name: "energy", Weight: p.Energy, Term: EnergyPenalty(p.Ridge)}
}

// GraphKey is a comparable value naming everything the graphs of Build(s, p, in) bake in: the
// generator's name and parameters and the values of the ingredients it reads (q̂ and the calibration's
// options by value; the latent maps by identity; for a spec that reads samples (ReadsSamples), their
// layout, not their values, which the graphs read as an input: Penalty.Inputs). Two generators with
// equal keys search alike, so a Searcher built for one searches with the other through SearchWith (the
// benchmark keeps one per model and generator for all runs). Not comparable when in's latent map is not
// (see models.Comparable).
func (s Spec) GraphKey(p Params, in Ingredients) any {
	type calibrationKey struct {
		clf  models.Classifier
		qHat uint64
		opts conformal.Options
	}
	type key struct {
		name, params string
		cal          calibrationKey
		vae          LatentMap
		pca          *PCA
		samples      string
		authorsCode  bool
		mad          string
		resample     bool
	}
	k := key{name: strings.ToLower(s.Name), params: fmt.Sprintf("%+v", p), vae: in.VAE, pca: in.PCA, authorsCode: in.AuthorsCode,
		mad: fmt.Sprint(in.MADWeights), resample: in.ResampleLatent}
	if c := in.Calibrated; c != nil {
		k.cal = calibrationKey{clf: c.Clf, qHat: math.Float64bits(c.QHat), opts: c.Opts}
	}
	if ts := in.Samples; ts != nil && s.ReadsSamples() {
		// The samples' values are an input of the graphs (Penalty.Inputs); their layout is not.
		k.samples = fmt.Sprintf("per-row %t, %d sets of %d × %d, %d chains", ts.PerRow, len(ts.Samples), ts.Kept(), ts.D, ts.Chains)
	}
	return k
}

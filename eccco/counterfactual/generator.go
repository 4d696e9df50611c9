package counterfactual

import (
	"fmt"
	"math"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/energy"
)

// Generator describes a gradient-based counterfactual generator as a value: a loss, weighted penalties, an
// optional latent map and an optimiser. Every generator of the paper is one of these, searched by the
// same engine (Search).
type Generator struct {
	// Name identifies the generator in results ("Wachter", "ECCCo", …).
	Name string
	// Loss is yloss(M(x′), y⁺); nil means CrossEntropy.
	Loss Term
	// Penalties are added to the loss with their weights.
	Penalties []Penalty
	// Latent, when set, is the map f: the search runs over z and x′ = f(z). nil searches x′ directly.
	Latent LatentMap
	// StepSize is η of gradient descent, and the size of one JSMA change.
	StepSize float64
	// JSMA, when set, replaces gradient descent by Schut et al.'s greedy update: one feature per step.
	JSMA *JSMA
	// Stepwise tells the search that its terms read State.Step, the index of the step (a decayed
	// penalty: DecayedEnergyPenalty); only then is the index fed to the step graph, and State.Step is nil
	// in the terms of other generators.
	Stepwise bool
}

// JSMA configures the greedy Jacobian-based saliency map update of Schut et al. (2021): at every step only
// the free feature with the largest |∂objective/∂x′_j| moves, by η·sign of the descent direction, and a
// feature changed MaxChanges times is frozen (all counters reset once every feature is frozen).
type JSMA struct {
	// MaxChanges is n; 0 means round(1/η).
	MaxChanges int
	// BoundsBlind chooses the feature as the authors' runs did (CE.jl 4c34c2a,
	// src/generators/optimizers/JSMADescent.jl:28-53): by |gradient| among the features that are not frozen
	// and may move, whether or not a bound stops them, so that a step towards a bound the feature already
	// sits on is undone by the clamp (search.jl:60-66, apply_domain_constraints!) and still counts as one of
	// its n changes. Unset, only features that can still move within the bounds are candidates, and every
	// step changes the counterfactual.
	BoundsBlind bool
}

// Validate checks the generator's settings.
func (g *Generator) Validate() error {
	if g == nil {
		return fmt.Errorf("generator: nil")
	}
	if !(g.StepSize > 0) || math.IsInf(g.StepSize, 0) {
		return fmt.Errorf("generator %s: step size η = %v, must be positive", g.Name, g.StepSize)
	}
	for _, p := range g.Penalties {
		if p.Term == nil {
			return fmt.Errorf("generator %s: penalty %q has no term", g.Name, p.Name)
		}
		if !(p.Weight >= 0) || math.IsInf(p.Weight, 0) {
			return fmt.Errorf("generator %s: penalty %q has weight λ = %v, must be non-negative and finite", g.Name, p.Name, p.Weight)
		}
		for j, in := range p.Inputs {
			if err := in.validate(); err != nil {
				return fmt.Errorf("generator %s: penalty %q: %w", g.Name, p.Name, err)
			}
			for _, other := range p.Inputs[:j] {
				if other.Name == in.Name {
					return fmt.Errorf("generator %s: penalty %q declares the input %q twice", g.Name, p.Name, in.Name)
				}
			}
		}
	}
	if g.JSMA != nil {
		if g.Latent != nil {
			return fmt.Errorf("generator %s: JSMA searches feature space and cannot use a latent map", g.Name)
		}
		if g.JSMA.MaxChanges < 0 {
			return fmt.Errorf("generator %s: JSMA MaxChanges = %d, must be non-negative", g.Name, g.JSMA.MaxChanges)
		}
	}
	return nil
}

func (g *Generator) maxChanges() int {
	if g.JSMA.MaxChanges > 0 {
		return g.JSMA.MaxChanges
	}
	return max(1, int(math.Round(1/g.StepSize)))
}

// Params are a data set's generator hyper-parameters (table_gen_params.tex): step η, the cost weight
// λ_cost (the table's λ1), the set-size weight λ_setsize (its λ2) and the energy weight λ_energy (its λ3:
// the table follows the code's order [cost, set size, energy], not the order of the paper's equation),
// and the ridge weight on the energy.
//
// DecayRate and DecayEvery, when DecayRate > 0, decay ECCCo's energy penalty as ECCCo.jl's energy_delta
// did (src/penalties.jl:77-78): at step t (0, 1, …) its weight is multiplied by ϕ_t = exp(−DecayRate·t)
// when t is a multiple of DecayEvery (t = 0 included; a DecayEvery below 1 means 1), and by 1 otherwise.
// The authors' Experiment default was (0.1, 5) (experiments/experiment.jl:43), their grid searched
// (0, 1), (0.01, 1) and (0.1, 1) (setup_env.jl:195 at 78925f6), and the value of the final runs is not
// recorded; the paper's table has no decay, and neither have these Params by default.
type Params struct {
	StepSize, Cost, SetSize, Energy, Ridge float64
	DecayRate                              float64
	DecayEvery                             int
}

// Ingredients are what the generators need besides their parameters; each generator uses some of them.
type Ingredients struct {
	// Calibrated is the explained classifier wrapped by split conformal prediction (ECCCo and variants).
	Calibrated *conformal.Calibrated
	// VAE is REVISE's latent map.
	VAE LatentMap
	// PCA is ECCCo+'s latent map.
	PCA *PCA
	// Samples are the SGLD samples per class of ECCCo-L1.
	Samples *energy.TargetSamples
	// AuthorsCode makes Build make the generators as the authors' code did (a compatibility switch, not
	// the paper's equations; WithAuthorsCode sets it with everything it needs): the set-size term Ω of every
	// ECCCo variant is gated to 0 where p(y⁺|x′) < 0.5 (GateBelowHalf) and follows ConformalPrediction.jl's
	// empty-set rule; ECCCo-L1's distance to the samples is summed over the samples given and divided by
	// the chains drawn (DistanceToSamplesAuthors; give it the lowest-energy sample of 10 chains, as
	// ECCCo.jl's generator did: energy.TargetSamples.Lowest); and ECCCo-L1 (no EBM) carries that distance
	// with weight 0, because the authors' code evaluated every penalty, λ = 0 or not (CE.jl
	// src/generators/complexity.jl:55), so its sampler was built and the metric reused it; Schut's greedy
	// step chooses its feature blind to the bounds (JSMA.BoundsBlind); ECCCo+ re-encodes its clamped
	// counterfactual into the PCA space after every step (Reencoded).
	AuthorsCode bool
	// MADWeights, when set, weight Wachter's cost: Σ_j w_j·|x′_j − x_j| (WithMADWachter sets
	// w_j = 1/(MAD_j + D·1e-5)). Unset, Wachter's cost is the plain L1 distance, in both modes: the
	// authors' runs computed the MAD weights and never applied them (CE.jl distance_utils.jl:17-18).
	MADWeights []float32
	// ResampleLatent makes Build search REVISE's latent space as the authors' runs did (Resampled): from a
	// posterior sample of the factual's code, re-encoding the counterfactual through a fresh sample after
	// every step. WithAuthorsCode sets it; it needs a VAE that is a Posterior.
	ResampleLatent bool
}

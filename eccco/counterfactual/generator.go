package counterfactual

import (
	"fmt"
	"math"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
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

// Wachter returns the generator of Wachter et al. (2017): yloss + λ_cost·‖x′ − x‖₁ in feature space, as
// the authors' runs computed it. For the MAD-weighted cost that CE.jl's distance_mad meant to compute,
// replace the penalty's term by WeightedL1Cost(MADWeights(train)) (Ingredients.WithMADWachter).
func Wachter(p Params) *Generator {
	return &Generator{Name: "Wachter", StepSize: p.StepSize, Penalties: []Penalty{{Name: "cost", Weight: p.Cost, Term: L1Cost}}}
}

// Schut returns the generator of Schut et al. (2021): no penalty, greedy JSMA steps of η, each feature
// changed at most round(1/η) times before it is frozen. (The paper's vision runs use η = 0.1, n = 10.)
func Schut(p Params) *Generator {
	return &Generator{Name: "Schut", StepSize: p.StepSize, JSMA: &JSMA{}}
}

// REVISE returns the generator of Joshi et al. (2019): yloss + λ_cost·‖f(z) − x‖₁ searched over the
// latent space of a VAE, f its decoder.
func REVISE(p Params, vae LatentMap) *Generator {
	return &Generator{Name: "REVISE", StepSize: p.StepSize, Latent: vae, Penalties: []Penalty{{Name: "cost", Weight: p.Cost, Term: L1Cost}}}
}

// ECCCo returns the paper's generator (Eq. "eccco"): yloss + λ_cost·‖x′ − x‖₁ + λ_energy·(E(x′|y⁺) +
// ridge·E²) + λ_setsize·Ω(C_θ(x′; α)), with c the classifier calibrated by split conformal prediction.
func ECCCo(p Params, c *conformal.Calibrated) *Generator {
	return &Generator{Name: "ECCCo", StepSize: p.StepSize, Stepwise: p.DecayRate > 0, Penalties: []Penalty{
		{Name: "cost", Weight: p.Cost, Term: L1Cost},
		energyPenalty(p),
		{Name: "setsize", Weight: p.SetSize, Term: SetSizePenalty(c, false)},
	}}
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

// ECCCoPlus is ECCCo searched in a PCA space (ECCCo+): pca should have as many components as REVISE's VAE
// has latent dimensions (see FitPCA).
func ECCCoPlus(p Params, c *conformal.Calibrated, pca *PCA) *Generator {
	g := ECCCo(p, c)
	g.Name, g.Latent = "ECCCo+", pca
	return g
}

// ECCCoNoCP is the ablation ECCCo (no CP): λ_setsize = 0, the set-size term dropped.
func ECCCoNoCP(p Params) *Generator {
	return &Generator{Name: "ECCCo (no CP)", StepSize: p.StepSize, Stepwise: p.DecayRate > 0, Penalties: []Penalty{
		{Name: "cost", Weight: p.Cost, Term: L1Cost},
		energyPenalty(p),
	}}
}

// ECCCoNoEBM is the ablation ECCCo (no EBM): λ_energy = 0, the energy term dropped.
func ECCCoNoEBM(p Params, c *conformal.Calibrated) *Generator {
	return &Generator{Name: "ECCCo (no EBM)", StepSize: p.StepSize, Penalties: []Penalty{
		{Name: "cost", Weight: p.Cost, Term: L1Cost},
		{Name: "setsize", Weight: p.SetSize, Term: SetSizePenalty(c, false)},
	}}
}

// ECCCoL1 is the appendix's variant (Algorithm 3): instead of the energy, the L1 distance to SGLD samples
// of the target class is penalised, with weight λ_energy.
func ECCCoL1(p Params, c *conformal.Calibrated, ts *energy.TargetSamples) *Generator {
	return &Generator{Name: "ECCCo-L1", StepSize: p.StepSize, Penalties: []Penalty{
		{Name: "cost", Weight: p.Cost, Term: L1Cost},
		samplesPenalty(p.Energy, ts),
		{Name: "setsize", Weight: p.SetSize, Term: SetSizePenalty(c, false)},
	}}
}

// ECCCoL1NoCP is ECCCo-L1 without the set-size term.
func ECCCoL1NoCP(p Params, ts *energy.TargetSamples) *Generator {
	return &Generator{Name: "ECCCo-L1 (no CP)", StepSize: p.StepSize, Penalties: []Penalty{
		{Name: "cost", Weight: p.Cost, Term: L1Cost},
		samplesPenalty(p.Energy, ts),
	}}
}

// ECCCoL1NoEBM is ECCCo-L1 without the distance to the SGLD samples: the same objective as ECCCo (no
// EBM), kept under its own name because the paper's tables report both.
func ECCCoL1NoEBM(p Params, c *conformal.Calibrated) *Generator {
	g := ECCCoNoEBM(p, c)
	g.Name = "ECCCo-L1 (no EBM)"
	return g
}

// GeneratorNames lists the generators of the paper in the order of its tables.
func GeneratorNames() []string {
	return []string{"ECCCo", "ECCCo+", "ECCCo (no CP)", "ECCCo (no EBM)", "ECCCo-L1", "ECCCo-L1 (no CP)", "ECCCo-L1 (no EBM)", "REVISE", "Schut", "Wachter"}
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
	// AuthorsCode makes ByName build the generators as the authors' code did (a compatibility switch, not
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
	// ResampleLatent makes ByName search REVISE's latent space as the authors' runs did (Resampled): from a
	// posterior sample of the factual's code, re-encoding the counterfactual through a fresh sample after
	// every step. WithAuthorsCode sets it; it needs a VAE that is a Posterior.
	ResampleLatent bool
}

// ByName builds a generator of the paper by its name (GeneratorNames; case and the spellings "eccco-plus",
// "no-cp", "no-ebm", "l1" are accepted), checking that the ingredients it needs are there.
func ByName(name string, p Params, in Ingredients) (*Generator, error) {
	need := func(ok bool, what string) error {
		if !ok {
			return fmt.Errorf("generator %s needs %s", name, what)
		}
		return nil
	}
	var g *Generator
	var err error
	switch normalise(name) {
	case "wachter":
		g = Wachter(p)
		if len(in.MADWeights) > 0 {
			g.Penalties[0].Term = WeightedL1Cost(in.MADWeights)
		}
	case "schut":
		g = Schut(p)
		g.JSMA.BoundsBlind = in.AuthorsCode
	case "revise":
		if err = need(in.VAE != nil, "a VAE (eccco vae --data D)"); err == nil {
			latent := in.VAE
			if in.ResampleLatent {
				post, ok := in.VAE.(Posterior)
				if err = need(ok, "a VAE with a posterior (EncodeGraph) to resample its codes"); err != nil {
					break
				}
				latent = Resampled{post}
			}
			g = REVISE(p, latent)
		}
	case "eccco":
		if err = need(in.Calibrated != nil, "a conformally calibrated classifier"); err == nil {
			g = ECCCo(p, in.Calibrated)
		}
	case "eccco+", "ecccoplus", "eccco-plus":
		if err = need(in.Calibrated != nil && in.PCA != nil, "a calibrated classifier and a PCA"); err == nil {
			g = ECCCoPlus(p, in.Calibrated, in.PCA)
			if in.AuthorsCode {
				g.Latent = Reencoded{in.PCA}
			}
		}
	case "eccco(nocp)", "eccco-no-cp", "no-cp", "nocp":
		g = ECCCoNoCP(p)
	case "eccco(noebm)", "eccco-no-ebm", "no-ebm", "noebm":
		if err = need(in.Calibrated != nil, "a conformally calibrated classifier"); err == nil {
			g = ECCCoNoEBM(p, in.Calibrated)
		}
	case "eccco-l1", "ecccol1", "l1":
		if err = need(in.Calibrated != nil && in.Samples != nil, "a calibrated classifier and SGLD samples per class"); err == nil {
			g = ECCCoL1(p, in.Calibrated, in.Samples)
		}
	case "eccco-l1(nocp)", "eccco-l1-no-cp":
		if err = need(in.Samples != nil, "SGLD samples per class"); err == nil {
			g = ECCCoL1NoCP(p, in.Samples)
		}
	case "eccco-l1(noebm)", "eccco-l1-no-ebm":
		if err = need(in.Calibrated != nil, "a conformally calibrated classifier"); err == nil {
			g = ECCCoL1NoEBM(p, in.Calibrated)
			if in.AuthorsCode && in.Samples != nil {
				g.Penalties = append(g.Penalties, samplesPenalty(0, in.Samples))
			}
		}
	default:
		return nil, fmt.Errorf("unknown generator %q (known: %s)", name, strings.Join(GeneratorNames(), ", "))
	}
	if err != nil {
		return nil, err
	}
	if in.AuthorsCode {
		for i, pen := range g.Penalties {
			switch pen.Name {
			case "setsize":
				g.Penalties[i].Term = SetSizePenalty(in.Calibrated, true)
			case "samples":
				g.Penalties[i].Term = DistanceToSamplesAuthors(in.Samples)
			}
		}
	}
	return g, g.Validate()
}

// GraphKey is a comparable value naming everything the graphs of ByName(name, p, in) bake in: the
// generator's name and parameters and the values of the ingredients it reads (q̂ and the calibration's
// options by value; the latent maps by identity; for the ECCCo-L1 family, the only generators that read
// samples, their layout, not their values, which the graphs read as an input: Penalty.Inputs). Two generators
// with equal keys search alike, so a Searcher built for one searches with the other through SearchWith
// (the benchmark keeps one per model and generator for all runs). Not comparable when in's latent map is
// not (see models.Comparable).
func GraphKey(name string, p Params, in Ingredients) any {
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
	k := key{name: normalise(name), params: fmt.Sprintf("%+v", p), vae: in.VAE, pca: in.PCA, authorsCode: in.AuthorsCode,
		mad: fmt.Sprint(in.MADWeights), resample: in.ResampleLatent}
	if c := in.Calibrated; c != nil {
		k.cal = calibrationKey{clf: c.Clf, qHat: math.Float64bits(c.QHat), opts: c.Opts}
	}
	if ts := in.Samples; ts != nil && (strings.HasPrefix(k.name, "eccco-l1") || k.name == "ecccol1" || k.name == "l1") {
		// The samples' values are an input of the graphs (Penalty.Inputs); their layout is not.
		k.samples = fmt.Sprintf("per-row %t, %d sets of %d × %d, %d chains", ts.PerRow, len(ts.Samples), ts.Kept(), ts.D, ts.Chains)
	}
	return k
}

func normalise(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), " ", "")
}

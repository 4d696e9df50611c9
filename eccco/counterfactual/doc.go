// Package counterfactual is eccco-go's search engine and the terms of the paper's generators.
//
// The generators are those of Altmeyer et al., AAAI-24, "Faithful Model Explanations through
// Energy-Constrained Conformal Counterfactuals": Wachter, Schut, REVISE, ECCCo, ECCCo+, the ablations ECCCo
// (no CP) and ECCCo (no EBM), and ECCCo-L1. Package catalogue declares each of them once, as a Spec
// (penalties, latent space, update), which Build turns into a Generator.
//
// # One objective, many generators
//
// Every generator minimises the paper's general objective (Eq. 1) over a search state z:
//
//	min_z  yloss(M_θ(f(z)), y⁺) + Σ_i λ_i · penalty_i(f(z), …)
//
// where M_θ is the classifier (models.Classifier), y⁺ the target class and f an optional latent map (a
// VAE decoder for REVISE, a PCA for ECCCo+; identity otherwise). Following CounterfactualExplanations.jl,
// a Generator is a value that describes the objective (Loss, Penalties with weights, Latent) and the
// optimiser (StepSize η, or Schut's JSMA); it is not a copy of the search loop. ECCCo (Eq. "eccco") is
//
//	yloss + λ_cost·‖x′ − x‖₁ + λ_energy·(E_θ(x′|y⁺) + ridge·E²) + λ_setsize·Ω(C_θ(x′; α)),
//
// with E_θ(x|y) = −M_θ(x)[y] the conditional energy (package energy) and Ω the smooth set size of the
// conformally calibrated model (package conformal). Params hold a data set's η and λ (the paper's, of
// table_gen_params.tex, are in package catalogue); mind that its λ2 is the set-size weight and λ3 the
// energy weight (the code's order). Build makes a generator from its Spec, Params and Ingredients, which
// PaperIngredients prepares for a trained model (calibration on half the training split, PCA, SGLD samples per class).
//
// # The search
//
// Search explains a batch of B factuals in one GoMLX graph call per step (a Searcher's repeated searches:
// per 10 steps), never looping over rows in Go. Each row starts at its factual (or its latent code f⁻¹(x)),
// takes the gradient step z ← z − η·∇_z objective (NaN gradients count as 0, as in the authors' code), and
// x′ = f(z) is clamped to the domain bounds and projected onto the per-feature Mutability constraints after
// every step, in feature and latent spaces alike (the authors' code drops the constraints in latent spaces;
// eccco-go does not). A Resampled latent map (the authors' REVISE) starts from a posterior sample instead
// and re-encodes x′ through a fresh one after every step, with noise seeded by Request.Seed; a Reencoded
// one (the authors' ECCCo+) encodes the clamped x′ again after every step. With Params.DecayRate the energy
// term's weight is multiplied at step t by ϕ_t = exp(−rate·t) when t is a multiple of DecayEvery
// (ECCCo.jl's energy_delta; the authors'-code mode uses exp(−0.01·t)). A row stops moving as soon as it
// converges while the others go on. Convergence follows the paper's "generator conditions" by default:
// p(y⁺|x′) ≥ γ = 0.5 and every component of the (projected) gradient below τ = 0.01, at most 100 steps;
// DecisionThreshold and MaxIterations are the alternatives. RecordPath keeps every row's trajectory (the
// paper's Figure 2).
//
// The search state stays in the backend's tensors from step to step (only the rows' convergence flags come
// back to Go each step; in a Searcher's chunks of 10 steps, only the number of rows still searching), and
// the projection's per-row bounds are computed once per search. Search builds and compiles its graphs for
// the one call; a Searcher (NewSearcher) keeps them for repeated searches with the same model and
// generator, with the same results bit for bit (on XLA, compiling is most of a small search's time). Values
// that change from run to run without changing the graph, such as ECCCo-L1's SGLD samples, are declared by
// their penalty (Penalty.Inputs) and reach the graph as an input rather than a constant, so that a Searcher
// also searches with another run's generator (SearchWith; Spec.GraphKey says which generators share graphs): the
// benchmark compiles each model's searches once for all its runs.
//
// Schut et al.'s generator replaces gradient descent by a greedy JSMA step: only the free feature with the
// largest |gradient| moves, by η, and a feature changed round(1/η) times is frozen until all are. Its
// convergence uses the decision threshold alone, since its steps do not shrink with the gradient
// (GeneratorConditionsAll also waits for the small gradient, as the authors' code did).
//
// The L1 terms use |v| with gradient sign(v), which is 0 at v = 0 (GoMLX's Abs has gradient 1 there), so
// the first step from the factual equals the plain yloss gradient step, as with Julia's Zygote.
//
// # Authors'-code compatibility
//
// The defaults follow the paper's equations. Each way in which the authors' code (ECCCo.jl,
// CounterfactualExplanations.jl (CE.jl) at 4c34c2a, ConformalPrediction.jl v0.1.12) built its generators
// differently, where that changes a reported number, is a switch of its own; experiment.Mode sets them:
//
//   - Wachter's cost is the plain L1 distance in both modes. CE.jl's distance_mad computes MAD weights and
//     passes them on (src/objectives/penalties.jl:21), but distance returns LinearAlgebra.norm(x′ − x, 1)
//     before reading them whenever there is one counterfactual (src/objectives/distance_utils.jl:17-18),
//     the default (src/generate_counterfactual/core.jl:49). The weighted cost stays available:
//     Ingredients.WithMADWachter (Σ_j |x′_j − x_j|/(MAD_j + D·1e-5), MADWeights).
//   - Ingredients.AuthorsCode (WithAuthorsCode): Ω is 0 wherever p(y⁺|x′) < 0.5 (conformal.GateBelowHalf), in
//     the penalty as in the metric; for inputs whose hard conformal set is empty, Ω = max(0, Σ_k (1 − C_k)
//     − κ) (conformal.SmoothSetSizeEmptyRule). On a well-separated data set q̂ is small, so sets are empty
//     for most counterfactuals with p(y⁺|x′) < 1 − q̂: the paper's Ω is 0 there, the code's close to 1.
//     This is where the published "uncertainty" numbers of 0.2–0.8 come from.
//   - Ingredients.AuthorsCode also builds the ECCCo-L1 family as ECCCo.jl did: its distance to the samples
//     is summed over the samples given and divided by the chains drawn (DistanceToSamplesAuthors). The
//     generator drew 10 chains of 100 steps (src/generator.jl:22-24) and pulled towards the nmin = 1
//     lowest-energy sample (src/penalties.jl:119-121), dividing by n = 10 (l.134): give it
//     energy.TargetSamples.Lowest(1) of energy.AuthorsL1ClassOptions' samples, and the penalty is
//     ‖x′ − s₀‖₁/10, a tenth of Algorithm 3's. ECCCo-L1 (no EBM) carries that penalty with weight 0: CE.jl
//     evaluates every penalty whatever its λ (src/generators/complexity.jl:55), so the sampler was built
//     and the metric reused it (experiment.Settings.UnfaithfulnessAgainstOwnSamples).
//   - GeneratorConditionsAll (a Request's Rule) stops Schut's JSMA search only when p(y⁺|x′) ≥ 0.5 and
//     every |∂objective/∂x′| < 0.01, or after 100 steps, as CE.jl's generic conditions did for its
//     GreedyGenerator (src/counterfactuals/convergence.jl:33-34, gradient_based/utils.jl:61-70).
//   - IngredientOptions.Calibration calibrates on given rows: the authors' code calibrated on the second
//     half of the training split, in file order, the model having been fitted on the first
//     (conformal.InductiveSplit).
//
// `eccco explain --mode authors-code` and `eccco bench --mode authors-code` use them all.
//
// Everything is deterministic: the search itself draws no random numbers; ECCCo-L1's SGLD samples are
// seeded (PaperIngredients).
package counterfactual

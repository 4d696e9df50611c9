// Package metrics scores counterfactual explanations with the six metrics of the ECCCo paper.
//
// The metrics are those of Altmeyer et al., AAAI-24, "Faithful Model Explanations through
// Energy-Constrained Conformal Counterfactuals" (Section 4.3, Section 6 and appendix):
//
//   - unfaithfulness (Eq. faith): the mean distance from x′ to the model's own conditional SGLD samples
//     of the target class, X̂_{θ,y⁺} (package energy: 50 chains, 500 steps, the n_E = 25 lowest-energy
//     kept; 10 chains all kept for the real-world data sets);
//   - implausibility (Eq. impl): the mean distance from x′ to the training rows of the target class;
//   - uncertainty: the smooth set size Ω(C_θ(x′; α)) of the conformally calibrated model (Eq. setsize);
//   - cost: the L1 distance ‖x′ − x‖₁ from the factual;
//   - redundancy: the share of features left unperturbed (|x′_j − x_j| < 1e-5; higher is better);
//   - validity: p(y⁺|x′) ≥ 0.5.
//
// Distances are Euclidean for tabular and synthetic data and, for images, the structural dissimilarity
// (1 − SSIM)/2 with the standard SSIM of Wang et al. (2004) on pixels mapped from [−1, 1] to [0, 1]
// (SSIM, StructuralDissimilarity, ImageDissimilarity).
//
// # Sampling once per model, class and run
//
// The authors' code drew fresh SGLD samples for every single counterfactual. The Evaluator instead takes
// samples drawn once per model, target class and run (energy.TargetSamples, e.g. from
// energy.SampleTargets) and shares them among that run's counterfactuals: every counterfactual is still
// compared with an independent draw from the same sampler, so the expected metric is the same, at a
// fraction of the cost (the paper's appendix says as much). One exception in the authors' code: for the
// ECCCo-L1 family, whose penalty drew SGLD samples itself (10 chains of 100 steps, cached in the
// explanation: ECCCo.jl src/penalties.jl:116), the metric reused those very samples, all 10 of them
// (l.121), and still divided their summed distance by its own n = 50 (l.134): Options.UnfaithfulnessDivisor.
// The authors'-code mode of the experiment layer does the same (experiment.Settings), for ECCCo-L1 (no EBM)
// too, whose penalty ran with λ = 0: that family's reported unfaithfulness is a fifth of the mean distance
// to its samples, the other generators' half of theirs.
//
// # The authors' code
//
// Options holds the switches that reproduce the authors' code where it changes a reported number
// (AuthorsOptions sets all three):
//
//   - ImplausibilityNearest = 100: the code averages over the 100 nearest target-class training rows, not
//     over all of them (or a random subsample, as the text says); this lowers implausibility.
//   - UnfaithfulnessDivisor = 50: the code divides the summed distance by 50 whatever the number of
//     samples: half the mean over its sampler's n_E = 25, a fifth over the ECCCo-L1 family's 10
//     (ECCCo.jl src/penalties.jl:121,134).
//   - GateUncertainty: the code sets Ω to 0 wherever p(y⁺|x′) < 0.5, which lowers the uncertainty of
//     invalid counterfactuals.
//
// For images the code also averaged the SSIM map over all 28×28 pixels (Julia's assess_ssim, crop =
// false) where the standard (scikit-image) SSIM averages the 18×18 interior that no padding reaches:
// ImageDissimilarityUncropped is that distance.
//
// The samples themselves are the other half of the story: the authors' sampler started about 95 % of
// its chains at one prior draw, moved them at most 0.01 per step and ranked them by −log softmax
// (energy.AuthorsClassOptions). The benchmark's compatibility mode draws the metric's samples with it
// (energy.TargetSampleOptions), and the ECCCo-L1 family's with its 10-chain, 100-step variant
// (energy.AuthorsL1ClassOptions). Because the benchmark samples once per model, class and run, where the
// code drew a fresh shared start for every counterfactual, the expected metric is the same but the
// spread of run means is larger (paper/differences.md).
//
// The Evaluator runs the model once over all counterfactuals of a batch (probabilities and Ω in batched
// graph calls); distances are plain Go.
package metrics

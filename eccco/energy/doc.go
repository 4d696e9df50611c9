// Package energy holds ECCCo's energy side: class-conditional energy, SGLD sampling and JEM training.
//
// It provides the class-conditional energy of a classifier, a batched Stochastic Gradient Langevin
// Dynamics (SGLD) sampler, the uniform prior and replay buffer used to start chains, the selection of the
// lowest-energy samples that the paper's unfaithfulness metric compares counterfactuals with (Altmeyer et
// al., AAAI-24, "Faithful Model Explanations through Energy-Constrained Conformal Counterfactuals"), and
// the training of Joint Energy Models.
//
// # Energy
//
// The conditional energy of a classifier M_θ with logits μ_θ(x) ∈ ℝ^K is (paper, Section "Quantifying the
// Model's Generative Property" and appendix)
//
//	E_θ(x | y) = −μ_θ(x)[y],
//
// the negative logit of class y. (The appendix writes μ_θ(x)[y] without the sign; the body of the paper and
// the authors' code use the negative logit.) For a deep ensemble the logits are the members' mean
// (models.Model.Logits), so −logit_y of the ensemble equals the mean of the members' energies.
// ConditionalEnergy builds it for any models.Classifier; the sampler accepts any differentiable Energy.
//
// # SGLD
//
// The paper's Eq. (sgld) is the textbook (unbiased) Langevin update
//
//	x_{j+1} = x_j − (ε/2)·∇ₓE(x_j|y⁺) + √ε·r_j,   r_j ~ N(0, I),
//
// written here with ε the step size of the gradient term (the paper writes ε²/2 and ε). Its stationary
// distribution approaches p(x|y⁺) ∝ exp(−E(x|y⁺)) as ε → 0 and J → ∞. The experiments use the biased
// update of appendix Eq. (biased-sgld), with step and noise chosen separately:
//
//	x̂_{j+1} = x̂_j − (φ/2)·∇ₓE(x̂_j|y⁺) + σ·r_j,   φ = 2, σ = 0.01 (defaults, after Grathwohl et al., 2020).
//
// SGLD.Unbiased selects the first form (noise sd √StepSize); otherwise NoiseSD is σ. Optional extras:
// element-wise gradient clipping (ClipGrad; the authors' code clips to ±0.01), clamping every step to a box
// (Lower/Upper, typically the prior's bounds), and the authors'-code quirk of averaging the energy over the
// chain batch before differentiating (BatchMeanGrad, which divides every chain's gradient by the number
// of chains). DefaultSGLD follows the paper's equation (φ = 2, σ = 0.01, J = 500 steps, no clipping);
// AuthorsSGLD adds the code's clipping and batch averaging.
//
// All chains advance together: one GoMLX graph call performs StepsPerCall unrolled steps (default 10) on
// the [chains, D] batch. The Gaussian noise is drawn in Go from data.NewRand(seed) (PCG, much cheaper
// than the pure-Go backend's in-graph Philox generator) and passed in with each call, so the same
// seed gives the same samples.
// Each chain can be conditioned on its own class.
//
// # Chains and samples
//
// Prior is the uniform distribution over a box: mean ± 3 sd of the training data per feature (images:
// [−1, 1]). ReplayBuffer keeps up to 10,000 past samples (newest kept) and starts 5% of chains fresh from
// the prior and the rest from random buffer entries (Du & Mordatch, 2019; Grathwohl et al., 2020).
//
// At inference the paper starts all chains from the prior: SampleClass and SamplePerClass run 50 chains
// for 500 steps and keep the n_E = 25 with the lowest energy (LowestEnergy), the setting of the
// unfaithfulness metric; SamplePerClass returns these samples for every class, which is the data behind
// the appendix figures of conditional samples. DefaultClassOptions clips gradients to ±0.01 as the
// authors' code did: the text's unclipped φ = 2 step is unstable on the tabular models
// (DefaultClassOptions). NearestDistances says how close samples sit to a class's
// training data.
//
// AuthorsClassOptions reproduces the sampler behind the published unfaithfulness numbers instead (the
// authors' EnergySampler): a replay buffer holding one prior draw, so that about 95 % of the chains start
// at the same point (SharedStart); the clipped, batch-mean gradient, so a chain moves at most 0.01 per
// step; and ranking by −log softmax_y rather than −logit_y (RankByLogSoftmax). Its samples sit around one
// random point per call rather than spread over the class. ExtremaPrior is the other reading of that
// sampler's prior (the data's overall range for every feature); AuthorsClassOptions says why the
// benchmark uses mean ± 3 sd. AuthorsL1ClassOptions is the same sampler as ECCCo.jl's generator built it
// for the ECCCo-L1 family (10 chains of 100 steps, src/generator.jl:22-24); TargetSamples.Lowest picks the
// one sample its penalty pulled towards.
//
// # JEM training
//
// TrainJEM trains an MLP, or every member of an MLP ensemble side by side, as a Joint Energy Model with
// the recipe of the authors' code: per minibatch, SGLD samples of one random class from the replay buffer
// (5% fresh from the prior), and the loss CE + (E(x_data) − E(x̂)) + λ·(E(x_data)² + E(x̂)²), skipping
// (and counting) steps whose loss is not finite. In a JEM ensemble each member has its own data order,
// classes, buffer and samples drawn from its own energy; with JEMOptions.BaggingFraction (the authors'
// code: 0.8, MLJEnsembles' default) each member also trains on its own bag of rows (models.Bags).
// The paper's settings per data set (table_ebm_params.tex) are in package catalogue (Dataset.JEMOptions). On XLA's accelerator
// plugins one graph call trains several minibatches, sampler, loss and step included, with the weights of
// one call per minibatch (TrainJEM says how).
package energy

// Package vae is the variational autoencoder whose latent space the REVISE generator searches.
//
// The VAE is Kingma & Welling's (2014); REVISE (Joshi et al., 2019) is one of the baselines of "Faithful
// Model Explanations through Energy-Constrained Conformal Counterfactuals" (Altmeyer et al., AAAI-24).
//
// # Why a VAE
//
// Counterfactual search (paper Eq. 1) may run over a latent state z rather than over the features: the
// counterfactual is then x′ = f(z), and the cost and the model's loss are measured on x′. REVISE takes f to
// be the decoder of a VAE fitted to the training data, so that counterfactuals stay on the data manifold
// the VAE has learnt; the paper uses it as its "plausibility by surrogate" baseline, and argues that
// ECCCo's energy constraint gets plausibility from the model itself instead (Section 3). The search starts
// at the factual's code z₀ = μ(x) and follows the gradient of the objective through the decoder, so the
// decoder must be a differentiable graph function of z: Decode(z *graph.Node) *graph.Node. With LatentDim
// and Encode (the posterior mean μ, computed once) a *VAE satisfies counterfactual.LatentMap; with
// EncodeGraph (μ and log σ inside a graph) it is a counterfactual.Posterior too, which the authors'-code
// mode searches as their runs did (counterfactual.Resampled): from a posterior sample z₀ = μ(x) + σ(x) ⊙ ε,
// re-encoding every step's counterfactual through a fresh sample. With the authors' objective σ is far
// from small (≈ 0.7 per dimension on California Housing, against |μ| ≈ 0.5), so that search wanders much
// further from the factual than one from μ.
//
// # The authors' VAE
//
// The architecture and training follow the authors' implementation in CounterfactualExplanations.jl
// (src/generative_models/encoders.jl and vae.jl), itself adapted from the Flux model zoo:
//
//	encoder: h = σ(W₁x + b₁);  μ = W_μ h + b_μ;  log σ = W_σ h + b_σ       (Dense(D, H, σ) + two heads)
//	decoder: x̂ = W₃ tanh(W₂z + b₂) + b₃                                    (Dense(L, H, tanh) → Dense(H, D))
//	loss:    (1/B) Σ ‖x̂ − x‖² + (1/B) Σ ½ Σ_j (σ_j² + μ_j² − 1 − 2 log σ_j) + λ Σ_decoder θ²
//
// with x̂ decoded from a reparameterised sample z = μ + σ ⊙ ε, ε ~ N(0, I). Note the second head is the
// log standard deviation, not the log variance, and the reconstruction term is a sum of squares over the
// features (Flux's mse with agg = sum), averaged over the minibatch, with unit weight against the KL
// term; the L2 penalty covers the decoder's weights and biases only. Training: Adam (η = 1e-3),
// minibatches of 50, 100 epochs (VAEParams defaults); λ = 0.01 by default and 1e-4 for the image VAEs.
// Sizes (package catalogue, Dataset.VAESpec): latent 2 and hidden 32 for the synthetic sets (the library defaults), latent 5 and
// hidden 32 for the tabular sets, latent 28 / hidden 50 for MNIST and latent 32 / hidden 64 for
// Fashion-MNIST (the pretrained "strong" VAEs of the library's dev/artifacts/vision.qmd:49,164, which
// ECCCo.jl loads). ECCCo+ (counterfactual.FitPCA) uses as many principal components as these latent sizes.
//
// Weights start as Flux's do (Glorot-uniform, zero biases). The reparameterisation noise is drawn in Go
// from a seeded generator and fed to the training graph (in-graph random numbers are slow on the pure-Go
// backend), so the same seed, data and options give identical weights.
//
// # A caveat: posterior collapse on low-variance data
//
// Weighing the summed squared error 1:1 against the KL term is the ELBO of a Gaussian decoder with
// variance ½ per feature. Where the data's own variance is not well above ½, the optimum of that objective
// ignores z: the KL term goes to 0 and the decoder outputs the training mean for every code, so REVISE has
// nowhere to go. Measured with the paper's settings on this package's data (seed 42, test MSE against the
// MSE of predicting the training mean): moons 0.23 vs 0.54 (usable, though blurred), german-credit 0.69
// vs 1.06, but circles 0.319 vs 0.320 and linearly-separable 0.115 vs 0.115 (collapsed, KL ≈ 0). The same
// network reconstructs moons scaled by 3 to 1.5 % of its variance, so the collapse is the objective's, not
// the implementation's. We keep the authors' objective; callers who need a usable latent space on such
// data can rescale the data. The collapse is consistent with the paper's own REVISE results on linearly
// separable data (validity 0.47–0.53 for every model): with the collapsed VAE, `eccco explain --generator
// REVISE --n 100` gives 50 % validity there, and 100 % on moons (MLP and JEM).
//
// # Using it
//
//	spec := vae.Spec{NumFeatures: 2, Latent: 2, Hidden: 32, Activation: vae.DefaultActivation} // moons
//	v, _ := vae.New(backend, spec, seed)
//	opts := vae.TrainOptions{Epochs: vae.DefaultEpochs, L2: vae.DefaultL2}
//	hist, _ := vae.Train(ctx, backend, v, split.Train, opts)
//	mse, _ := v.ReconstructionError(backend, split.Test)
//	_ = v.Save("runs/models/moons/vae")
//
// Inside a graph, EncodeGraph(x) gives μ and log σ and Decode(z) the reconstruction; EncodeMean,
// DecodeRows and Reconstruct evaluate them on many rows from Go, in chunks of RowChunk rows. The command
// `eccco vae --data D` trains and saves the paper's VAE for a data set.
package vae

// Package conformal implements split conformal prediction and ECCCo's smooth set-size penalty.
//
// Split conformal prediction works for any models.Classifier; the smooth, differentiable set-size
// penalty and the configurable classification loss of conformal training are what ECCCo uses inside
// counterfactual search.
//
// # Split conformal prediction
//
// Calibrate wraps a trained classifier M and a held-out calibration set {(x_i, y_i)}, i = 1..n, computes
// the nonconformity scores s_i = 1 − softmax(M(x_i))[y_i] (ECCCo appendix, "Conformal Prediction";
// Angelopoulos and Bates, 2021) and their quantile q̂. The prediction set of an input x is
//
//	C(x; α) = {k : s_k(x) ≤ q̂},   s_k(x) = 1 − softmax_k(M(x))
//
// (Eq. "scp" of the paper). Two quantiles are offered (see Options.FiniteSampleCorrection):
//
//   - the plain (1 − α) quantile (default), the one the paper's code uses: Julia's Statistics.quantile
//     with its default definition (Hyndman–Fan type 7, as R's and NumPy's defaults): with the scores sorted
//     v_1 ≤ … ≤ v_n and h = (n − 1)(1 − α), q̂ = v_{⌊h⌋+1} + (h − ⌊h⌋)(v_{⌊h⌋+2} − v_{⌊h⌋+1});
//   - the finite-sample-corrected quantile that carries the coverage guarantee P(y ∈ C(x)) ≥ 1 − α:
//     the ⌈(n + 1)(1 − α)⌉-th smallest score, or 1 (the largest possible score, so every set holds all
//     classes) when that rank exceeds n.
//
// Evaluate measures the empirical coverage and mean set size on test data; PredictionSets returns the hard
// sets; SplitCalibration splits a training set at random into a fitting part and a calibration part (the
// paper calibrates on half of the training split), InductiveSplit without shuffling, as the authors'
// ConformalPrediction.jl did: the first half fits the model, the second calibrates it.
//
// # Smooth set size (Ω)
//
// Following Stutz et al. (2022), "Learning Optimal Conformal Classifiers", ICLR, the hard membership
// 1[s_k ≤ q̂] is relaxed to C_k(x) = σ((q̂ − s_k(x))/T) with temperature T, and the smooth set size penalty
// is
//
//	Ω(C(x; α)) = max(0, Σ_k C_k(x) − κ)
//
// (Eq. "setsize" of the ECCCo paper, κ ∈ {0, 1}; the paper uses T = 0.1, κ = 1, α = 0.05). As T → 0,
// Σ_k C_k tends to the hard set size. SmoothSetSize builds Ω from logits as a differentiable graph function;
// Calibrated.SmoothSetSize builds it from inputs x, so it can be differentiated with respect to x inside
// counterfactual search. Two behaviours of the authors' Julia code are available as explicit,
// non-default compatibility switches: the empty-set rule of ConformalPrediction.jl's smooth_size_loss
// (SmoothSetSizeEmptyRule, Options.EmptySetRule) and the gating that zeroes Ω whenever p(y⁺|x) < 0.5
// (GateBelowHalf, Calibrated.GatedSmoothSetSize). A third, Options.MeanMemberProbabilities, computes an
// ensemble's Ω as ConformalPrediction.jl did through MLJ's ensemble prediction: from the mean of its M
// members' probabilities, p̄ = (1/M) Σ_m softmax(f_m(x)), with s_k = 1 − p̄_k, instead of from
// softmax((1/M) Σ_m f_m(x)), the softmax of the mean logits that Logits gives (Calibrated.OmegaLogits).
//
// Ω depends on an input only through its class probabilities: OmegaOf computes it in Go from a probability
// vector, and ValidOmegaRange bounds it over every probability vector whose target class has at least a
// given probability (0.5: every valid counterfactual). The bound shows what q̂ alone decides. With q̂ near
// 1 (a model whose wrong calibration predictions are confident), each of K − 1 classes at probability 0
// still has C_k = σ((q̂ − 1)/T) ≈ 1/2, so no counterfactual of ten classes gets Ω below about 4.3; with a
// small q̂ and the empty-set rule, one that crosses 0.5 without reaching 1 − q̂ has an empty hard set and
// Ω near K − κ.
//
// # Configurable classification loss
//
// ConfigurableLoss is the configurable classification loss of conformal training (Stutz et al., 2022,
// Eq. 6): for a target class y and a K×K loss matrix L,
//
//	L_class(C(x), y) = Σ_k L_{y,k} [ (1 − C_k(x)) 1[y = k] + C_k(x) 1[y ≠ k] ],
//
// which, with the default L = I, is the coverage loss 1 − C_y(x); off-diagonal entries of L penalise the
// inclusion of other classes in the set. LossLogOdds selects instead the form that ConformalPrediction.jl's
// ConformalTraining.classification_loss computes (and the ECCCo code calls): each bracketed term is
// replaced by its log-odds log(A/(1 − A)), which is exactly −z_y for k = y and z_k for k ≠ y, with
// z_k = (q̂ − s_k)/T.
//
// Graph functions follow GoMLX's conventions: they work in the dtype of their inputs (float32 or float64)
// and panic on invalid arguments while a graph is being built; functions that take Go data (Calibrate,
// PredictionSets, Evaluate, GridValues, SplitCalibration) validate their arguments and return errors.
package conformal

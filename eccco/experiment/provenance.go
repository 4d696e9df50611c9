package experiment

// Provenance says where a switch of the authors'-code mode comes from.
type Provenance string

const (
	// Replayed: what the authors' code does, at the file and line given.
	Replayed Provenance = "replayed"
	// Inferred: from the authors' code and data together, where the code alone does not decide it.
	Inferred Provenance = "inferred"
	// Fitted: chosen so that the results match the published numbers, where the authors' code does not
	// record the value. A run without the fitted switches (Options.Set with each FittedOff pair) is the
	// replay-only authors'-code mode.
	Fitted Provenance = "fitted"
)

// Switch is one switch of Settings with its provenance: the key of Settings.Set, where the value of the
// authors'-code mode comes from, and the source it is replayed, inferred or fitted from, as file:line.
// Files are ECCCo.jl's (pat-alt/ECCCo.jl) at d0ada1d unless another commit or package is named:
// 78925f6 is its "final runs" commit (2023-12-07), whose src/ and models/ are d0ada1d's and whose
// experiments/ scripts differ in places; CE.jl is CounterfactualExplanations.jl at 4c34c2a, the version
// the Manifest of 78925f6 pins (d0ada1d's pins 111ede2, v0.1.31); the other packages at the versions
// both Manifests pin (ConformalPrediction.jl v0.1.12, JointEnergyModels.jl v0.1.3, MLJEnsembles.jl
// v0.3.3, ImageQualityIndexes.jl v0.3.7).
type Switch struct {
	Key        string
	Provenance Provenance
	Source     string
	// Off is the value that switches it to the paper's (the zero of the field, as Set reads it).
	Off string
}

// Switches lists every switch of Settings in field order, with its provenance. The package docs of the
// switched packages carry the same file and line.
func Switches() []Switch {
	return []Switch{
		{"authors-data", Replayed, "CE.jl src/data/Data.jl:14 (data_seed 42), src/data/synthetic/blobs.jl:10-11 (Random.seed! before MLJBase 0.21.14 make_blobs); experiments/linearly_separable.jl:5; experiments/Manifest.toml:3 (Julia 1.9.3, 1.9.4 at 78925f6: the same Xoshiro256++)", "false"},
		{"authors-models", Replayed, "experiments/models/models.jl:11,76-81, experiments/experiment.jl:9,175-187 (pretrained models loaded; models/*.jls)", "false"},
		{"inductive-split", Replayed, "ConformalPrediction.jl v0.1.12 src/conformal_models/inductive_classification.jl:21,45,91 (train_ratio 0.5: fits the first half, in file order); experiments/models/train_models.jl:70-71", "false"},
		{"bagging", Replayed, "MLJEnsembles.jl v0.3.3 src/ensembles.jl:335 (default bagging_fraction 0.8), 463; experiments/models/default_models.jl:74,90", "0"},
		{"jem-first-label", Replayed, "JointEnergyModels.jl v0.1.3 src/model.jl:65,77 (energy(…, onecold(y)[1]): the minibatch's first label), as experiments/models/default_models.jl:77-90 trains the JEMs", "false"},
		{"vision-architecture", Replayed, "experiments/mnist.jl:45, fmnist.jl:45 (128 swish units, one layer); experiments/models/additional_models.jl:23-34 (LeNet-5, both convolutions same-padded)", "false"},
		{"vae-official-training", Inferred, "experiments/mnist.jl:13-14, fmnist.jl:13-14 (CE.jl's pretrained VAEs); CE.jl dev/artifacts/vision.qmd:18,49,117,164 (the data they were trained on, not their weights)", "false"},
		{"factuals-from-training", Replayed, "CE.jl src/evaluation/benchmark.jl:219,272-277 (test_data = data: training rows predicted as each label)", "false"},
		{"target-mix", Fitted, "CE.jl src/evaluation/benchmark.jl:225-234 draws the labels on Julia's global RNG, whose state is not recorded; the mix is read off REVISE's published validity", ""},
		{"authors-ingredients", Replayed, "src/penalties.jl:28 (gate), 93-134, src/generator.jl:22-24,50; ConformalPrediction.jl v0.1.12 src/conformal_models/ConformalTraining/losses.jl:60-70 (empty set); MLJEnsembles.jl v0.3.3 src/ensembles.jl:102-105; CE.jl src/counterfactuals/latent_space_mappings.jl:55, search.jl:66, src/generators/optimizers/JSMADescent.jl:28-53", "false"},
		{"stop-on-all-conditions", Replayed, "experiments/benchmarking/benchmarking.jl:175 (converge_when = :generator_conditions); CE.jl src/counterfactuals/convergence.jl:33-34, src/generators/gradient_based/utils.jl:61-70, generators.jl:39-41", "false"},
		{"energy-decay-rate", Fitted, "src/penalties.jl:74-82 (the decay is replayed; its rate is not recorded: experiments/experiment.jl:43, 78925f6 setup_env.jl:195; 0.01 is the one of the authors' grid that matched the published numbers best)", "0"},
		{"energy-decay-every", Fitted, "src/penalties.jl:77 (as energy-decay-rate)", "0"},
		{"schut-step", Replayed, "experiments/benchmarking/benchmarking.jl:86, mnist.jl:51 (use_variants = false): GreedyGenerator() with CE.jl's default η = 0.1 (src/generators/gradient_based/generators.jl:39)", "0"},
		{"vision-cost", Fitted, "78925f6 experiments/mnist.jl:33,57-59,66, benchmarking.jl:84-114, grid_search.jl:259-283 (Wachter, REVISE and ECCCo-L1 took the Experiment's Λ, replaced by a grid winner that is not recorded; the printed η = 0.05 shows the merge); 0.1 is the grid's λ1 that matched the published numbers", "0"},
		{"vision-l1-energy", Fitted, "as vision-cost (ECCCo-L1's λ3 of the grid winner, 78925f6 setup_env.jl:189, mnist.jl:33: 0.2, 0.5 or 3.0; 0.2 matched best)", "0"},
		{"noisy-image-bounds", Replayed, "experiments/mnist.jl:7-10, fmnist.jl:7-10: counterfactual_data.domain = fill((minimum(X), maximum(X)), D)", "false"},
		{"authors-sampler", Replayed, "src/sampling.jl:12,50-53,139-148; JointEnergyModels.jl v0.1.3 src/Samplers/Samplers.jl:87,91,36-38,27,50 (one shared start, clipped steps, clamped at the end); src/penalties.jl:95,101 (50 chains keeping 25)", "false"},
		{"l1-own-sampler", Replayed, "src/generator.jl:22-24,50 (10 chains of 100 steps), src/penalties.jl:115-122 (cached; the lowest-energy sample)", "false"},
		{"own-samples-unfaithfulness", Replayed, "src/penalties.jl:115-117,121; experiments/setup_env.jl:169; CE.jl src/generators/complexity.jl:55", "false"},
		{"own-samples-divisor", Replayed, "src/penalties.jl:95,134 (n = 50)", "0"},
		{"authors-metrics", Replayed, "experiments/setup_env.jl:167-176 (the measures); src/penalties.jl:28 (the gate), 134 (÷ 50), 262,273 (100 nearest neighbours)", "false"},
		{"uncropped-ssim", Replayed, "src/utils.jl:58 (assess_ssim); ImageQualityIndexes.jl v0.3.7 src/ssim.jl:88 (crop = false by default)", "false"},
	}
}

// FittedOff returns the Options.Set pairs that switch the fitted switches off: the authors'-code mode
// with them is the replay-only mode.
func FittedOff() map[string]string {
	off := map[string]string{}
	for _, s := range Switches() {
		if s.Provenance == Fitted {
			off[s.Key] = s.Off
		}
	}
	return off
}

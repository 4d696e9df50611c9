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
// authors'-code mode comes from, and the source it is replayed, inferred or fitted from (ECCCo.jl at
// d0ada1d unless CE.jl, CounterfactualExplanations.jl, or another package is named).
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
		{"authors-data", Replayed, "CE.jl src/data/Data.jl:14 (data_seed 42) before MLJBase 0.21.14 make_blobs; Julia 1.9.3's Xoshiro256++", "false"},
		{"authors-models", Replayed, "experiments/models/models.jl:76-81, experiments/experiment.jl:175-187 (pretrained models loaded; models/*.jls)", "false"},
		{"inductive-split", Replayed, "ConformalPrediction.jl v0.1.12 SimpleInductiveClassifier, train_ratio 0.5 (fitting half first, in file order)", "false"},
		{"bagging", Replayed, "MLJEnsembles EnsembleModel default bagging_fraction 0.8", "0"},
		{"jem-first-label", Replayed, "JointEnergyModels.jl v0.1.3 loss as experiments/models/models.jl calls it (the minibatch's first label)", "false"},
		{"vision-architecture", Replayed, "experiments/mnist.jl, experiments/fmnist.jl; experiments/models/additional_models.jl", "false"},
		{"vae-official-training", Inferred, "experiments/mnist.jl load_mnist_vae(); CE.jl dev/artifacts/vision.qmd (the data CE.jl's pretrained VAE was trained on, not its weights)", "false"},
		{"factuals-from-training", Replayed, "CE.jl src/evaluation/benchmark.jl:219-274", "false"},
		{"target-mix", Fitted, "CE.jl src/evaluation/benchmark.jl:225-226 draws the labels on Julia's global RNG, whose state is not recorded; the mix is read off REVISE's published validity", ""},
		{"authors-ingredients", Replayed, "src/penalties.jl; ConformalPrediction.jl's empty-set rule; CE.jl src/counterfactuals/latent_space_mappings.jl:55, search.jl:66, src/generators/optimizers/JSMADescent.jl", "false"},
		{"stop-on-all-conditions", Replayed, "CE.jl src/generators/gradient_based/generators.jl (generator_conditions_satisfied)", "false"},
		{"energy-decay-rate", Fitted, "src/penalties.jl:74-81 (the decay is replayed; its rate is not recorded, 0.01 is the one of the authors' grid that matched the published numbers best)", "0"},
		{"energy-decay-every", Fitted, "src/penalties.jl:74-81 (as energy-decay-rate)", "0"},
		{"schut-step", Replayed, "experiments/benchmarking/benchmarking.jl: GreedyGenerator() with its default η = 0.1 on images", "0"},
		{"vision-cost", Fitted, "experiments/mnist.jl:33,57-59, benchmarking.jl:84-117, grid_search.jl:259-282 (Wachter, REVISE and ECCCo-L1 took the Experiment's Λ, replaced by a grid winner that is not recorded; the printed η = 0.05 shows the merge); 0.1 is the grid's λ1 that matched the published numbers", "0"},
		{"vision-l1-energy", Fitted, "as vision-cost (ECCCo-L1's λ3 of the grid winner: 0.2, 0.5 or 3.0; 0.2 matched best)", "0"},
		{"noisy-image-bounds", Replayed, "experiments/mnist.jl: counterfactual_data.domain = fill((minimum(X), maximum(X)), D)", "false"},
		{"authors-sampler", Replayed, "src/sampling.jl (get_lowest_energy_sample; shared start, clipped steps, 50 chains keeping 25)", "false"},
		{"l1-own-sampler", Replayed, "src/penalties.jl:93-116", "false"},
		{"own-samples-unfaithfulness", Replayed, "src/penalties.jl:116,121; CE.jl src/generators/complexity.jl:55", "false"},
		{"own-samples-divisor", Replayed, "src/penalties.jl:134 (n = 50)", "0"},
		{"authors-metrics", Replayed, "ECCCo.jl's evaluation of the metrics (metrics.AuthorsOptions documents each: 100 nearest neighbours, the divisor, the gate)", "false"},
		{"uncropped-ssim", Replayed, "Images.jl assess_ssim with its default crop = false", "false"},
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

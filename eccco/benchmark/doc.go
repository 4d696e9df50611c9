// Package benchmark runs the ECCCo paper's evaluation protocol and writes one row per counterfactual.
//
// The protocol is the paper's Section 6 and appendix (Altmeyer et al., AAAI-24), as the authors ran it
// (ECCCo.jl experiments/experiment.jl and the data sets' scripts beside it). This package measures;
// package compare sets its results against the published numbers and package report renders every table.
//
// # Protocol
//
// A Protocol fixes a data set, its models (MLP, MLP ensemble, JEM, JEM ensemble; LeNet-5 for images),
// the generators (values: the paper's, overridden, or a user's own; see experiment.Generator), the number
// of runs (50 for synthetic and tabular data, 10 for images) and of factuals per run (100), the seed and
// the mode (experiment.Mode). PaperProtocol gives the paper's; Plan builds protocols from options, as
// `eccco bench` does. The models, factuals, targets, generators' ingredients and metrics come from the
// experiment layer (package experiment), the same code `eccco explain` and the notebooks use. In every
// run, the factuals are drawn from the test split (the same rows for every model of the run) and each
// gets a random target other than the class its model predicts. Every generator explains every model's
// factuals with the paper's hyper-parameters (catalogue.Datasets) and every counterfactual is
// scored by metrics.Evaluator. All randomness derives from the protocol's seed and the names of what it
// is for, so the same seed gives byte-identical results whatever the order, sharding or interruptions.
//
// # Units, resuming and sharding
//
// The work is split into units (data set × model × generator × run). Runner.Run writes each finished
// unit atomically to Out/units/DATA/MODEL/GENERATOR/run-NNN.csv and skips units already there: an
// interrupted benchmark resumes where it stopped and ends with the same bytes as an uninterrupted one.
// Each data set's units carry a Manifest (seed, factuals, mode, protocol version, each generator's
// definition, each model's weights fingerprint, the backends): resuming or merging units computed under
// anything else fails with ErrManifest. Shard{I, N} selects every N-th (model, run) group, for a
// cluster's job array; Runner.MergeDirs joins shard outputs and Runner.Collect writes the tidy
// Out/results.csv (Row: data set, model, generator, run, factual, target, the six metrics, p(y⁺|x′),
// iterations, converged). Timings records the wall time of each stage per data set.
//
// # Lanes
//
// Runner.RunAll runs several data sets' protocols at once, Lanes.Jobs of them, each in its own lane
// (goroutine) from its first unit to its last, on the backend Lanes.Backend gives it; Performances does
// the same for training and scoring the models (the paper's Table 5). The bytes are those of one lane.
// The lanes take the image data sets first, the longest.
//
// # Calibration bounds
//
// Ω depends on a counterfactual only through its class probabilities and on the model only through q̂,
// so Runner.UncertaintyBounds reads each saved model's calibration (experiment.Calibrated; never
// training) and bounds the Ω of every valid counterfactual it could have (conformal.ValidOmegaRange).
// WriteBounds and ReadBounds keep them beside the tables (BoundsFile).
package benchmark

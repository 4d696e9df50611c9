// Package benchmark runs the evaluation protocol of the ECCCo paper (Altmeyer et al., AAAI-24, Section 6
// and appendix) and turns its results into the paper's tables: Tables 1–2 and the appendix result tables
// per data set, for all counterfactuals and for the valid ones.
//
// # Protocol
//
// A Protocol fixes a data set, its models (MLP, MLP ensemble, JEM, JEM ensemble; LeNet-5 for images),
// the generators (values: the paper's, overridden, or a user's own; see experiment.Generator), the number
// of runs (50 for synthetic and tabular data, 10 for images) and of factuals per run (100), the seed and
// the mode (experiment.Mode). The models, factuals, targets, generators' ingredients and metrics come
// from the experiment layer (package experiment), the same code `eccco explain` and the notebooks use. In every run, the factuals are drawn from the test split (the same rows for every model
// of the run) and each gets a random target other than the class its model predicts (the paper says
// "other than its label"; for a correctly classified factual that is the same, and for a misclassified
// one it avoids a trivial counterfactual). Every generator explains every model's factuals with the
// paper's hyper-parameters (counterfactual.PaperParams) and every counterfactual is scored by
// metrics.Evaluator, with the model's SGLD samples for unfaithfulness drawn once per model, target class
// and run. All randomness derives from the protocol's seed and the names of what it is for, so the
// same seed gives byte-identical results whatever the order, sharding or interruptions.
//
// # Units, resuming and sharding
//
// The work is split into units (data set × model × generator × run). Runner.Run writes each finished
// unit atomically to Out/units/DATA/MODEL/GENERATOR/run-NNN.csv and skips units already there: an
// interrupted benchmark resumes where it stopped and ends with the same bytes as an uninterrupted one.
// Each data set's units carry a Manifest (seed, factuals, mode, protocol version, each generator's
// definition, each model's weights fingerprint): resuming or merging units computed under anything else
// fails with ErrManifest.
// Shard{I, N} selects every N-th (model, run) group, for a cluster's job array; Runner.MergeDirs joins
// shard outputs and Runner.Collect writes the tidy Out/results.csv (one row per counterfactual: data set,
// model, generator, run, factual, target, the six metrics, p(y⁺|x′), iterations, converged).
//
// # Lanes
//
// Runner.RunAll runs several data sets' protocols at once, Lanes.Jobs of them, each in its own lane
// (goroutine) from its first unit to its last, on the backend Lanes.Backend gives it; Performances does
// the same for training and scoring the models (the paper's Table 5). The bytes are those of one lane.
// One data set keeps only part of a small machine busy — its graph calls, host-side metrics and random
// numbers take turns — so on the project's 2 cores two lanes finish in about the CPU time over two
// (`eccco bench --jobs`, `eccco perf --jobs`, ECCCO_JOBS in reproduce.sh). The lanes take the image data
// sets first, the longest.
//
// # Tables
//
// Aggregate follows the paper: the mean of each metric within each run, then the mean of the run means
// ± the sample sd of the run means, for all counterfactuals and for valid ones only; bold marks the best
// generator per model and metric, * and ** a generator more than 1 and 2 pooled sd better than Wachter.
// WriteTables writes LaTeX (booktabs), Markdown and CSV; Compare sets our cells against the published
// ones (paper/published-results.csv): whether ours lies within their mean ± 3 sd, and whether the signs
// of ECCCo − Wachter (unfaithfulness) and REVISE − Wachter (implausibility) agree per data set and model.
// ReadCells reads a cells.csv back, and WriteReportKeeping joins the cells of data sets benchmarked
// earlier to fresh rows (a new data set added to committed tables).
//
// Every cell outside the tolerance gets a likely cause (MissCause). One of them is proved rather than
// suspected: Ω depends on a counterfactual only through its class probabilities and on the model only
// through q̂, so Runner.UncertaintyBounds reads each saved model's calibration (experiment.Calibrated;
// never training) and bounds the Ω of every valid counterfactual it could have
// (conformal.ValidOmegaRange). A published Ω outside that range is out of reach of any search with our
// model: CompareWithBounds marks the cell (and its "all" twin), MissCause names the calibration, and the
// comparison prints q̂ and the range per model (ReportOptions.Bounds; `eccco bench` does it with the
// models it used, `eccco tables --models-dir DIR` with saved ones).
//
// Another is measured: SpreadRows sets the sd of our run means against the published sd per metric. For
// unfaithfulness ours is about three times theirs, because the authors drew the metric's SGLD samples for
// every counterfactual; the other metrics' spreads match or are smaller. The comparison prints the table.
//
// # Backends
//
// The manifest records the GoMLX backends that computed a data set's units (Manifest.Backends). Agree
// compares two benchmarks counterfactual by counterfactual, e.g. the same protocol and models on the
// pure-Go backend and on XLA: they agree to float32 rounding, which a 100-step search may amplify in a few
// counterfactuals (go doc ./eccco/backend has the measurement).
package benchmark

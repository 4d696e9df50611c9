// Package experiment trains, explains and scores the models of one data set, mode and seed.
//
// It is the one place where "train the model with the paper's settings", "draw the factuals of run r",
// "prepare the generators" and "score the counterfactuals" are written; the command-line tool, the
// benchmark, the figures and the notebooks all call it. Read its functions in order and you read the
// table of contents of an experiment of the paper:
//
//  1. Open a data set with a seed and a Mode (the paper's equations, or the authors' code):
//     Open("moons", Options{Mode: AuthorsCode}). Open resolves the mode once, for the data set, into
//     Settings: every switch between the paper's text and the authors' code, each documented with the
//     authors' file and line and whether it is replayed, inferred or fitted. Options.Set overrides single
//     switches (Settings.Set); ParseSet reads key=value pairs for them and for the training, sampling,
//     search and generator overrides.
//  2. Ask for a model: Experiment.Model loads a matching saved one from ModelsDir/MODE/seed-SEED/DATA/KIND
//     or trains one with the paper's settings and saves it, with its Provenance (data set, seed, split,
//     mode, settings, kind, training); a saved model made for anything else is ErrMismatch, never silently
//     used or overwritten. Experiment.SavedModel only loads; Experiment.Performance scores a model (Table
//     5); Experiment.VAE does the same for REVISE's autoencoder. With Settings.AuthorsModels the data sets
//     whose trained models the authors published explain those (models.LoadAuthors, from
//     Options.AuthorsModelsDir; q̂ from their stored calibration scores).
//  3. Draw the factuals and targets of run r: Experiment.Factuals (the benchmark's seeding, so `eccco
//     explain` and `eccco bench` pick the same rows and targets for the same seed).
//  4. Prepare the run: Experiment.Run calibrates the model by split conformal prediction, fits ECCCo+'s PCA,
//     brings REVISE's VAE and draws the SGLD samples behind unfaithfulness and ECCCo-L1 — only what the
//     generators need. Experiment.Calibrated returns that calibration alone (q̂ of run r, from a saved
//     model, never training): what bounds the uncertainty metric.
//  5. Explain: Run.Explain searches one generator's counterfactuals of all factuals in one batched search
//     and scores them with the six metrics; Explanation.Summary and SummaryTable show them.
//     Experiment.Sample draws a model's SGLD samples of one class.
//
// Generators are values all the way up: a Generator names one of the paper's (ParseGenerators matches
// names case-insensitively and refuses repeats), overrides its hyper-parameters (Set, ParamKeys) or
// builds a user's own from the run's ingredients (Build), and the benchmark runs any list of them.
//
// The shortest path, as a notebook cell:
//
//	e, _ := experiment.Open("moons", experiment.Options{})
//	gens, _ := experiment.ParseGenerators("ECCCo", "Wachter")
//	xs, _ := e.Explain(ctx, models.KindJEM, 20, gens...)
//	fmt.Println(experiment.SummaryTable(xs))
//
// Every per-data-set choice of the paper (architecture, training, JEM, generator parameters, latent size,
// VAE, runs) is a row of catalogue.Datasets, which Open reads and translates into the lower packages'
// options.
//
// Everything is deterministic for a seed (SeedFor derives the seed of each random step from the
// experiment's seed and what the step is for). An Experiment compiles each model's graphs (predictions,
// calibration, SGLD, every generator's search, the metrics) once and keeps them for all its runs
// (models.Graphs; Close releases them), with the same results bit for bit as compiling them per run.
//
// # Your own data and model
//
// OpenCustom (or OpenCustomFiles: an ONNX model, a CSV and its schema) prepares an experiment on a user's
// data with CustomTemplate's settings; Custom.Explain runs any of the paper's generators with the schema's
// constraints kept after every step and reports counterfactuals in the data's units (WriteCustomCSV);
// Custom.Score computes the same metrics and violations for counterfactuals made by any tool.
package experiment

// Package catalogue declares the paper's facts once: its generators and its data sets' settings.
//
// Each generator of Altmeyer et al. (AAAI-24) is declared in one table with its name (a typed constant),
// aliases, penalties, latent space, search rule and what it needs and reads. A declaration is a
// counterfactual.Spec, which counterfactual.Build turns into the engine's Generator for a data set's
// hyper-parameters (counterfactual.Params) and a run's ingredients; ByName does both from a name,
// GraphKey says which built generators share compiled graphs, NeedsOf what a list of generators needs
// prepared (counterfactual.PaperIngredients) and Generator.Params which hyper-parameters each one reads.
// LookupGenerator finds a generator by any accepted spelling.
//
// Each data set of the paper has one row of Datasets (LookupDataset): its models' architecture and
// training, its JEM's, its VAE's, its generators' hyper-parameters and its inference sampler, from the
// appendix's tables; a row's methods translate it into each lower package's own options (ModelSpec,
// JEMOptions, VAESpec, VAETrainOptions, GeneratorParams, SampleOptions). The lower packages keep their
// engines and option types and never import this package.
package catalogue

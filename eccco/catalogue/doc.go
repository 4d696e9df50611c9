// Package catalogue declares the paper's facts once: each generator of Altmeyer et al. (AAAI-24) with
// its name, aliases, penalties, latent space, search rule and what it needs and reads.
//
// A generator's declaration is a counterfactual.Spec, which counterfactual.Build turns into the
// engine's Generator for a data set's hyper-parameters (counterfactual.Params) and a run's
// ingredients; ByName does both from a name, GraphKey says which built generators share compiled graphs,
// NeedsOf what a list of generators needs prepared (counterfactual.PaperIngredients) and
// Generator.Params which hyper-parameters each one reads.
package catalogue

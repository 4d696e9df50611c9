// Package figures makes the ECCCo paper's figures from experiments; package plot draws them.
//
// Each recipe opens what it needs from an experiment (package experiment: models trained or loaded,
// searches run with their paths recorded, SGLD samples, conformal surfaces), picks its factuals
// deterministically (the first clean test rows of a class, experiment.TestRowsOf) and hands plain data
// to a drawing function of package plot:
//
//   - Fig. 1 (fig:motiv) and Fig. 3 (fig:mnist-bmk): Transformation, one factual turned into another
//     class by each generator (plot.ImageRow).
//   - Fig. 2 (fig:poc), fig:poc-gen and fig:cp-diff: SyntheticData computes, for a 2-D data set, the
//     generators' objective fields (counterfactual.ObjectiveField), their search paths
//     (counterfactual.Result.Paths), the model's SGLD samples and the conformal surfaces
//     (conformal.GridValues); Synthetic.POC, POCGen and CPDiff draw them (plot.POC, plot.POCGen,
//     plot.CPDiff).
//   - fig:mnist-gen: GeneratedImages, the model's conditional SGLD samples per class (plot.SampleGrid).
//   - The appendix's 10 × 10 grids (fig:mnist-eccco-*, fig:mnist-revise-*): CounterfactualGrid
//     (plot.CounterfactualMatrix).
//   - fig:vae-rec: VAEReconstructions, REVISE's VAE (plot.Reconstructions).
//   - Beyond the paper: BenchmarkChart, one metric of benchmark cells per generator and model
//     (plot.MetricChart).
//
// Catalog lists every figure as a Spec (file name, the paper's label and caption, the data sets it
// needs, its recipe); an Env opens each data set's experiment once and shares the 2-D computations
// between Fig. 2, fig:poc-gen and fig:cp-diff; Spec.Write makes NAME.png, NAME.svg and NAME.pdf, and
// NAME.criteria.json with the criteria the recipe measured (WriteCriteria, ReadCriteria). The
// command `eccco figures` runs the catalog.
package figures

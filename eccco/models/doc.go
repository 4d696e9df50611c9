// Package models holds the classifiers that eccco explains, with their training, scoring and saving.
//
// They are the Classifier abstraction, the paper's multi-layer perceptron (MLP), deep ensembles and
// LeNet-5.
//
// # The Classifier abstraction
//
// ECCCo explains a differentiable classifier M_θ: X → R^K through its logits. Everything downstream
// (counterfactual search, Section 5, Eq. 5; the conditional energy E(x|y) = −M_θ(x)[y] of Section 4.1;
// conformal prediction sets of Section 4.2) needs those logits as a graph function of a batch of inputs,
// so that gradients with respect to the inputs flow through it. That is the whole interface:
//
//	type Classifier interface {
//		Logits(x *graph.Node) *graph.Node // [B, D] → [B, K]
//		NumFeatures() int
//		NumClasses() int
//	}
//
// Logits reads the model's weights into whatever graph x belongs to (GoMLX variables may be read by any
// graph), so one Classifier serves many graphs and may be called several times in one graph. A user's own
// GoMLX model becomes a Classifier with FromFunc. Probabilities, Predict and Logits evaluate a Classifier
// on many rows at once, in chunks of PredictionChunk rows per graph call.
//
// # The paper's models
//
// Model is a Classifier built from a Spec: the MLP (Hidden units × Layers, relu or swish; Table 4 of the
// appendix, table_params.tex, kept per data set in package catalogue, whose Dataset.ModelSpec builds the Spec), the deep
// ensemble of Lakshminarayanan et al. (2017) (Members MLPs whose logits are averaged, the convention of the
// authors' code, where the ensemble's energy is the mean member energy), and LeNet-5 (LeCun et al., 1998)
// for the image data. Joint Energy Models share the MLP architecture and differ in training (package
// energy).
//
// Train fits a Model by minibatch Adam (learning rate 1e-3, Flux's default as used by the authors) on
// the cross-entropy of the logits; an ensemble's members are trained side by side in one graph, each on
// its own shuffle. Evaluate reports the scores of Table 5 of the appendix (table_perf.tex): accuracy,
// macro precision and macro F1 (Published holds the paper's values). Save and Load write and read a GoMLX
// checkpoint plus the Spec and the model's Provenance (data set, seed, split, mode, training) as JSON,
// atomically. Save never deletes what is there: a model already saved in the directory is replaced only
// by Replace, anything else never (ErrExists; CheckSaveDir tells beforehand); Load tells a directory
// without a model (ErrNoModel) from a broken one.
//
// # The authors' trained models
//
// The authors committed the trained models behind their tables for six data sets (ECCCo.jl's models/
// folder at AuthorsCommit; copies are in eccco/models/authors and built into eccco). LoadAuthors reads one such
// Julia-serialized file into Models of eccco's architecture, with the calibration scores stored beside
// each: ScanJuliaArrays finds the Float32 and Float64 arrays in the stream, and the file's layout (checked
// by its sha256 and by the shapes of every layer) says which chain is which model's. A Flux Dense weight
// [out, in] in Julia's column-major order is eccco's [in, out] weight in row-major order, element for
// element. On California Housing and German Credit those models score what the paper's Table 5 reports
// (German Credit's MLP 0.53 against 0.52).
//
// Everything is seeded: the same seed, data and options give bit-identical weights on the same backend.
//
// # Compiled graphs, kept
//
// Graphs keeps compiled graphs (and values that hold them) under keys that name what they compute:
// KeptProbabilities, KeptLogits, KeptPredict and KeptOutputs are Probabilities, Logits, Predict and
// Outputs with their graph kept, and the packages above keep their samplers, searches and metric graphs
// in the same Graphs. On the pure-Go backend building a graph costs little; XLA compiles each, which takes
// longer than a run of a small tabular model computes, so the experiment layer keeps one Graphs per data
// set and compiles each model's graphs once for all runs. The values are the same bit for bit.
//
// # Models from other frameworks
//
// FromONNX reads a classifier exported to ONNX (e.g. by torch.onnx.export) and converts its graph to GoMLX
// operations (github.com/gomlx/onnx-gomlx), so gradients with respect to the inputs are exact; a final
// softmax is read through to its logits, a single output is a binary logit. Errors wrap ErrONNX.
package models

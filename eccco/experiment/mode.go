package experiment

import (
	"fmt"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/metrics"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// Mode decides every switch that makes the difference between the paper's equations and what the
// authors' code did when it computed the published numbers. It is the one place where that choice is
// made: each package keeps its own documented switches (with the authors' file and line), and Mode maps
// itself onto them.
type Mode string

const (
	// Paper follows the paper's text and equations (the default).
	Paper Mode = "paper"
	// AuthorsCode reproduces what the authors' code did where it changes a reported number:
	//   - JEM training (energy.JEMOptions.WithPaperCode): energies of the softmax output, conditioned on
	//     the minibatch's first label;
	//   - the generators (counterfactual.Ingredients.WithPaperCode): MAD-weighted Wachter cost, Ω gated
	//     below p = 0.5 with ConformalPrediction.jl's empty-set rule, ECCCo-L1's distance divided by the
	//     chains drawn;
	//   - the SGLD samples behind unfaithfulness and ECCCo-L1 (energy.PaperCodeClassOptions: a shared
	//     start, steps of at most 0.01, ranked by −log softmax, 50 chains keeping 25);
	//   - the metrics (metrics.PaperCodeOptions: 100 nearest neighbours for implausibility, halved
	//     unfaithfulness, gated uncertainty, uncropped SSIM), and ECCCo-L1's unfaithfulness measured
	//     against the samples its own penalty used.
	AuthorsCode Mode = "authors-code"
)

// Modes lists the modes, the default first.
func Modes() []Mode { return []Mode{Paper, AuthorsCode} }

// ParseMode reads a mode name: "paper" or "authors-code" (also "" for the default, and the older
// spellings "compat", "paper-code" and "code" for the authors' code).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "paper", "equations":
		return Paper, nil
	case "authors-code", "authors", "code", "compat", "paper-code":
		return AuthorsCode, nil
	}
	return "", fmt.Errorf("%w: unknown mode %q (want paper or authors-code)", ErrInvalid, s)
}

// String returns the mode's name.
func (m Mode) String() string { return string(m.orDefault()) }

func (m Mode) orDefault() Mode {
	if m == "" {
		return Paper
	}
	return m
}

// IsAuthorsCode reports whether m is AuthorsCode.
func (m Mode) IsAuthorsCode() bool { return m.orDefault() == AuthorsCode }

// Validate reports an unknown mode.
func (m Mode) Validate() error {
	_, err := ParseMode(string(m))
	if err == nil && m != "" && m != Paper && m != AuthorsCode {
		return fmt.Errorf("%w: mode %q is an alias; use %q or %q", ErrInvalid, string(m), Paper, AuthorsCode)
	}
	return err
}

// JEMOptions returns o switched to the mode (the authors' code: energy.JEMOptions.WithPaperCode).
func (m Mode) JEMOptions(o energy.JEMOptions) energy.JEMOptions {
	if m.IsAuthorsCode() {
		return o.WithPaperCode()
	}
	return o
}

// Objective names how a model of this kind is trained in the mode; it is recorded in the model's
// provenance.
func (m Mode) Objective(kind models.Kind) string {
	switch {
	case kind != models.KindJEM && kind != models.KindJEMEnsemble:
		return "cross-entropy"
	case m.IsAuthorsCode():
		return "jem (authors' code: softmax energies, first-label conditioning)"
	}
	return "jem"
}

// Ingredients returns the generators' ingredients switched to the mode (the authors' code:
// counterfactual.Ingredients.WithPaperCode with train's MAD weights).
func (m Mode) Ingredients(in counterfactual.Ingredients, train *data.Dataset) (counterfactual.Ingredients, error) {
	if !m.IsAuthorsCode() {
		return in, nil
	}
	return in.WithPaperCode(train)
}

// SampleOptions returns the conditional SGLD sampler behind the unfaithfulness metric and ECCCo-L1's
// samples for a model trained on train (energy.TargetSampleOptions in the mode).
func (m Mode) SampleOptions(dataset string, train *data.Dataset) (energy.ClassOptions, error) {
	return energy.TargetSampleOptions(dataset, train, m.IsAuthorsCode())
}

// ClassOptions returns the sampler of `eccco sample` in the mode: energy.DefaultClassOptions (the paper)
// or energy.PaperCodeClassOptions (the authors' code), started from prior.
func (m Mode) ClassOptions(prior energy.Prior) energy.ClassOptions {
	if m.IsAuthorsCode() {
		return energy.PaperCodeClassOptions(prior)
	}
	return energy.DefaultClassOptions(prior)
}

// MetricsOptions returns the metrics' options in the mode for data shaped like train: the authors' code
// switches (metrics.PaperCodeOptions) or none, and for images the structural dissimilarity (cropped as
// scikit-image does, or uncropped as the authors' Julia code did).
func (m Mode) MetricsOptions(train *data.Dataset) metrics.Options {
	o := metrics.Options{}
	if m.IsAuthorsCode() {
		o = metrics.PaperCodeOptions()
	}
	if img := train.Image; img != nil {
		o.Distance = metrics.ImageDissimilarity(img.Height, img.Width)
		if m.IsAuthorsCode() {
			o.Distance = metrics.ImageDissimilarityUncropped(img.Height, img.Width)
		}
	}
	return o
}

// UnfaithfulnessAgainstOwnSamples reports whether a generator's unfaithfulness is measured against the
// SGLD samples its own penalty pulled towards (the authors' code, for ECCCo-L1 and its no-CP ablation: its
// distance_from_energy kept the sampler in the explanation and the metric reused it) rather than against
// an independent draw.
func (m Mode) UnfaithfulnessAgainstOwnSamples(g *counterfactual.Generator) bool {
	if !m.IsAuthorsCode() {
		return false
	}
	for _, p := range g.Penalties {
		if p.Name == "samples" && p.Weight != 0 {
			return true
		}
	}
	return false
}

package counterfactual

import (
	"context"
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/conformal"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/gomlx/compute"
)

// PaperIngredients prepares what the paper's generators need for a model clf trained on train: the model
// calibrated by split conformal prediction on half of the training split (α = 0.05, T = 0.1, κ = 1), the
// PCA of ECCCo+ with IngredientOptions.Latent components, and SGLD samples of every class for ECCCo-L1
// drawn by IngredientOptions.Sampler (the paper's inference setting: 50 chains keeping the 25
// lowest-energy ones for synthetic data, 10 chains all kept otherwise); ECCCo+ and ECCCo-L1 thus need
// PaperIngredientsWith. vae may be nil (REVISE then cannot be built). Of the PCA and the samples, only
// those need asks for are prepared (Spec.Needs: the PCA for ECCCo+, the samples for ECCCo-L1 and ECCCo-L1
// (no CP)); the calibration always is.
func PaperIngredients(ctx context.Context, backend compute.Backend, clf models.Classifier, dataset string, train *data.Dataset, vae LatentMap, seed uint64, need Needs) (Ingredients, error) {
	return PaperIngredientsWith(ctx, backend, clf, dataset, train, vae, seed, IngredientOptions{}, need)
}

// IngredientOptions change how PaperIngredientsWith prepares the ingredients; the zero value is
// PaperIngredients.
type IngredientOptions struct {
	// Calibration, when set, holds the rows the model is calibrated on: the authors' code calibrated on
	// the second half of the training split, in file order, which the model was not fitted on
	// (conformal.InductiveSplit). nil calibrates on a random half of train drawn with the seed
	// (conformal.SplitCalibration), the paper's setting.
	Calibration *data.Dataset
	// CalibrationScores, when set, are the calibration scores themselves (conformal.FromScores): the
	// scores the authors' trained models were stored with (models.Authored). They replace Calibration.
	CalibrationScores []float64
	// Graphs, when set, keeps the compiled graphs of the calibration and the SGLD sampler for later
	// calls (models.Graphs); the ingredients are the same either way.
	Graphs *models.Graphs
	// Latent is the number of components of ECCCo+'s PCA: the paper's latent size of the data set
	// (catalogue.Dataset.LatentDim, that of REVISE's VAE). It is required when ECCCo+ is prepared.
	Latent int
	// Sampler draws ECCCo-L1's SGLD samples: the paper's inference sampler of the data set
	// (catalogue.Dataset.SampleOptions). It is required when ECCCo-L1 is prepared; its Graphs is set from
	// Graphs.
	Sampler *energy.ClassOptions
}

// PaperCalibrationFraction is the share of the training split the paper calibrates on (a random half,
// seeded; IngredientOptions.Calibration replaces it).
const PaperCalibrationFraction = 0.5

// PaperIngredientsWith is PaperIngredients with options.
func PaperIngredientsWith(ctx context.Context, backend compute.Backend, clf models.Classifier, dataset string, train *data.Dataset, vae LatentMap, seed uint64, o IngredientOptions, need Needs) (Ingredients, error) {
	needSamples, needPCA := need.Samples, need.PCA
	var c *conformal.Calibrated
	if o.CalibrationScores != nil {
		var err error
		if c, err = conformal.FromScores(clf, o.CalibrationScores, conformal.DefaultOptions()); err != nil {
			return Ingredients{}, err
		}
	} else {
		cal := o.Calibration
		if cal == nil {
			var err error
			if _, cal, err = conformal.SplitCalibration(train, PaperCalibrationFraction, seed); err != nil {
				return Ingredients{}, err
			}
		}
		var err error
		if c, err = conformal.CalibrateKept(o.Graphs, backend, clf, cal, conformal.DefaultOptions()); err != nil {
			return Ingredients{}, err
		}
	}
	in := Ingredients{Calibrated: c, VAE: vae}
	if needPCA {
		k := o.Latent
		if k < 1 {
			return Ingredients{}, fmt.Errorf("ingredients for %s: ECCCo+'s PCA needs IngredientOptions.Latent, the latent size", dataset)
		}
		var err error
		// N centred rows span at most N − 1 directions: a table with fewer rows than the paper's size
		// (a user's own) gets that many components.
		if in.PCA, err = FitPCA(train, max(1, min(k, train.D(), train.N()-1))); err != nil {
			return Ingredients{}, err
		}
	}
	if !needSamples {
		return in, nil
	}
	if o.Sampler == nil {
		return Ingredients{}, fmt.Errorf("ingredients for %s: ECCCo-L1's samples need IngredientOptions.Sampler", dataset)
	}
	opts := *o.Sampler
	opts.Graphs = o.Graphs
	ts, err := energy.SampleTargets(ctx, backend, clf, opts, seed)
	if err != nil {
		return Ingredients{}, err
	}
	in.Samples = ts
	return in, nil
}

// WithAuthorsCode returns the ingredients switched to the authors' code (see Ingredients.AuthorsCode): Build
// then gates Ω below p = 0.5, follows ConformalPrediction.jl's empty-set rule and its ensemble Ω from the
// mean of the members' probabilities (on a copy of the calibrated classifier: the receiver is not changed), builds the ECCCo-L1 family as ECCCo.jl did, lets Schut choose
// its feature blind to the bounds (JSMA.BoundsBlind), re-encodes ECCCo+'s clamped counterfactuals
// (Reencoded) and searches REVISE's latent space through posterior samples (ResampleLatent). It does not set
// MADWeights: the authors' runs computed them and never applied them (see WithMADWachter).
func (in Ingredients) WithAuthorsCode() Ingredients {
	in.AuthorsCode, in.ResampleLatent = true, true
	if in.Calibrated != nil {
		c := *in.Calibrated
		c.Opts.EmptySetRule = true
		c.Opts.MeanMemberProbabilities = true
		in.Calibrated = &c
	}
	return in
}

// WithMADWachter returns the ingredients with Wachter's cost weighted by train's MAD weights
// (MADWeights): what CounterfactualExplanations.jl's distance_mad meant to compute
// (src/objectives/penalties.jl:21 passes weights = 1 ./ mad), though not what the authors' runs computed
// (src/objectives/distance_utils.jl:17-18 returns the plain norm for one counterfactual before reading the
// weights). Neither mode sets it; it is there for a study of the weighted cost.
func (in Ingredients) WithMADWachter(train *data.Dataset) (Ingredients, error) {
	w, err := MADWeights(train)
	if err != nil {
		return Ingredients{}, fmt.Errorf("MAD-weighted Wachter: %w", err)
	}
	in.MADWeights = w
	return in, nil
}

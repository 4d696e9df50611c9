package experiment

import (
	"context"

	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
	"github.com/gomlx/compute"
)

// preparation prepares what generators need of a model, in the settings of one of the paper's data
// sets: the one path of the paper's data sets (Experiment.prepare) and of a user's table
// (Custom.ingredients). It keeps what is the same for every model and run of its training data: ECCCo+'s
// PCA, fitted on first need, and REVISE's VAE, got on first need through vae (loaded or trained).
type preparation struct {
	backend compute.Backend
	paper   catalogue.Dataset // the data set whose settings apply (for a user's table, its template)
	train   *data.Dataset
	graphs  *models.Graphs // nil: nothing compiled is kept
	vae     func(context.Context) (*vae.VAE, error)
	pca     *counterfactual.PCA
}

// ingredients returns the ingredients of model that the named generators (canonical names) need:
// the conformal calibration (as o.Calibration and o.CalibrationScores say), the PCA and the VAE where a
// generator needs them, and the samples of the ECCCo-L1 family from the paper's sampler, seeded by seed.
// With ownL1 (Settings.L1OwnSampler) the family draws its samples from a sampler of its own instead: they
// are left out, and drawOwn reports that a named generator reads them (the caller draws them).
func (p *preparation) ingredients(ctx context.Context, model models.Classifier, names []string, seed uint64,
	o counterfactual.IngredientOptions, ownL1 bool) (in counterfactual.Ingredients, drawOwn bool, err error) {
	var need counterfactual.Needs
	var latent counterfactual.LatentMap
	for _, name := range names {
		g, err := catalogue.LookupGenerator(name)
		if err != nil {
			return counterfactual.Ingredients{}, false, err
		}
		n := g.Needs()
		if n.PCA && p.pca == nil {
			// N centred rows span at most N − 1 directions: a table with fewer rows than the paper's
			// size (a user's own) gets that many components.
			k := max(1, min(p.paper.LatentDim(), p.train.D(), p.train.N()-1))
			if p.pca, err = counterfactual.FitPCA(p.train, k); err != nil {
				return counterfactual.Ingredients{}, false, err
			}
		}
		if n.VAE && latent == nil {
			v, err := p.vae(ctx)
			if err != nil {
				return counterfactual.Ingredients{}, false, err
			}
			latent = v
		}
		if ownL1 && g.ReadsSamples() {
			drawOwn = true
			continue
		}
		need.Samples = need.Samples || n.Samples
	}
	sampler, err := p.paper.SampleOptions(p.train, false)
	if err != nil {
		return counterfactual.Ingredients{}, false, err
	}
	o.Latent, o.Sampler, o.Graphs = p.paper.LatentDim(), &sampler, p.graphs
	in, err = counterfactual.PaperIngredientsWith(ctx, p.backend, model, p.paper.Name, p.train, latent, seed, o, need)
	if err != nil {
		return counterfactual.Ingredients{}, false, err
	}
	in.PCA = p.pca
	return in, drawOwn, nil
}

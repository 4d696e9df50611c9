package catalogue_test

import (
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

// translate reads a data set's settings from the lower packages' own lookups (before the move).
func translate(name string) (oldSettings, error) {
	var s oldSettings
	var err error
	if s.models, err = models.PaperSettings(name); err != nil {
		return s, err
	}
	if s.jem, err = energy.PaperJEMSettings(name); err != nil {
		return s, err
	}
	if s.params, err = counterfactual.PaperParams(name); err != nil {
		return s, err
	}
	if s.latent, err = counterfactual.LatentDim(name); err != nil {
		return s, err
	}
	if s.vaeTrain, err = vae.PaperTrainOptions(name); err != nil {
		return s, err
	}
	if s.vaeSpec, err = vae.PaperSpec(name, 7); err != nil {
		return s, err
	}
	if s.mlp, err = models.SpecFor(models.KindMLP, name, 7, 3); err != nil {
		return s, err
	}
	s.ens, err = models.SpecFor(models.KindJEMEnsemble, name, 7, 3)
	return s, err
}

func jemOptions(name string, train *data.Dataset, seed uint64) (energy.JEMOptions, error) {
	return energy.PaperJEMOptions(name, train, seed)
}

package catalogue_test

import (
	"github.com/eccco-go/eccco-go/eccco/catalogue"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// translate reads a data set's settings through the catalogue's translations.
func translate(name string) (oldSettings, error) {
	var s oldSettings
	d, err := catalogue.LookupDataset(name)
	if err != nil {
		return s, err
	}
	s.models, s.jem, s.params, s.latent, s.vaeTrain = d.Model, d.JEM, d.GeneratorParams(), d.LatentDim(), d.VAETrainOptions()
	if s.vaeSpec, err = d.VAESpec(7); err != nil {
		return s, err
	}
	if s.mlp, err = d.ModelSpec(models.KindMLP, 7, 3); err != nil {
		return s, err
	}
	s.ens, err = d.ModelSpec(models.KindJEMEnsemble, 7, 3)
	return s, err
}

func jemOptions(name string, train *data.Dataset, seed uint64) (energy.JEMOptions, error) {
	d, err := catalogue.LookupDataset(name)
	if err != nil {
		return energy.JEMOptions{}, err
	}
	return d.JEMOptions(train, seed)
}

package experiment

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/energy"
	"github.com/eccco-go/eccco-go/eccco/models"
	"github.com/eccco-go/eccco-go/eccco/vae"
)

// DatasetSettings gathers, in one place, every per-data-set choice of the paper that eccco-go uses. Each
// part still lives with the code that uses it (and is tested there); this is where to find them all.
type DatasetSettings struct {
	Dataset string
	// Data is the data set's recipe and source (data.Lookup).
	Data data.Info
	// Models are the architecture and training of the MLPs and their ensembles (table_params.tex).
	Models models.Settings
	// JEM are the Joint Energy Models' SGLD steps, samples and λ (table_ebm_params.tex).
	JEM energy.JEMSettings
	// Generators are η and the λs of the generators (table_gen_params.tex).
	Generators counterfactual.Params
	// LatentDim is the latent size of REVISE's VAE and of ECCCo+'s PCA; VAE its training.
	LatentDim int
	VAE       vae.TrainOptions
	// Runs and Factuals are the benchmark's protocol (benchmark.PaperProtocol): 50 runs of 100 factuals,
	// 10 runs for images.
	Runs, Factuals int
}

// PaperSettings returns every per-data-set setting of the paper for a data set.
func PaperSettings(dataset string) (DatasetSettings, error) {
	s := DatasetSettings{Dataset: dataset, Runs: 50, Factuals: 100}
	var err error
	if s.Data, err = data.Lookup(dataset); err != nil {
		return s, err
	}
	if s.Models, err = models.PaperSettings(dataset); err != nil {
		return s, err
	}
	if s.JEM, err = energy.PaperJEMSettings(dataset); err != nil {
		return s, err
	}
	if s.Generators, err = counterfactual.PaperParams(dataset); err != nil {
		return s, err
	}
	if s.LatentDim, err = counterfactual.LatentDim(dataset); err != nil {
		return s, err
	}
	if s.VAE, err = vae.PaperTrainOptions(dataset); err != nil {
		return s, err
	}
	if s.Data.Kind == data.KindVision {
		s.Runs = 10
	}
	return s, nil
}

// String summarises the settings on one line.
func (s DatasetSettings) String() string {
	return fmt.Sprintf("%s: MLP %d×%d %s, %d members, %d epochs, batch %d; JEM %d SGLD steps, %d samples, λ %g; generators η %g, λ cost %g, set size %g, energy %g, ridge %g; latent %d; %d runs × %d factuals",
		s.Dataset, s.Models.Layers, s.Models.Hidden, s.Models.Activation, s.Models.EnsembleSize, s.Models.Epochs, s.Models.BatchSize,
		s.JEM.SGLDSteps, s.JEM.Samples, s.JEM.Lambda, s.Generators.StepSize, s.Generators.Cost, s.Generators.SetSize, s.Generators.Energy,
		s.Generators.Ridge, s.LatentDim, s.Runs, s.Factuals)
}

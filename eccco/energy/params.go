package energy

import "fmt"

// JEMSettings are the paper's Joint Energy Model choices for one data set (Table "EBM hyperparameter
// choices", table_ebm_params.tex): SGLD steps per minibatch, the number of SGLD samples drawn per
// minibatch ("batch size"), and λ, the weight of the energy regulariser.
type JEMSettings struct {
	SGLDSteps int
	Samples   int
	Lambda    float64
}

var paperJEM = map[string]JEMSettings{
	"linearly-separable": {50, 50, 0.1},
	"moons":              {30, 10, 0.1},
	"circles":            {30, 50, 0.01},
	"california-housing": {30, 10, 0.1},
	"gmsc":               {30, 10, 0.1},
	"german-credit":      {30, 10, 0.1},
	"mnist":              {25, 10, 0.01},
	"fashion-mnist":      {25, 10, 0.01},
}

// PaperJEMSettings returns the paper's JEM settings for a data set by name.
func PaperJEMSettings(dataset string) (JEMSettings, error) {
	s, ok := paperJEM[dataset]
	if !ok {
		return JEMSettings{}, fmt.Errorf("no JEM settings for data set %q", dataset)
	}
	return s, nil
}

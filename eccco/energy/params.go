package energy

// JEMSettings are the paper's Joint Energy Model choices for one data set (Table "EBM hyperparameter
// choices", table_ebm_params.tex): SGLD steps per minibatch, the number of SGLD samples drawn per
// minibatch ("batch size"), and λ, the weight of the energy regulariser.
type JEMSettings struct {
	SGLDSteps int
	Samples   int
	Lambda    float64
}

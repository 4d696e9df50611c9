package benchmark

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/data"
	"github.com/eccco-go/eccco-go/eccco/experiment"
	"github.com/eccco-go/eccco-go/eccco/models"
)

// PlanOptions say which protocols Plan builds: each data set's PaperProtocol with what is set here
// overriding it. Zero values keep the paper's.
type PlanOptions struct {
	// Datasets are the data sets, in order.
	Datasets []string
	// SkipMissing leaves out the data sets that are not available under DataDir (data.Present; "" is
	// data.DefaultDir()) instead of failing when their data are first read.
	SkipMissing bool
	DataDir     string
	// Models replaces the paper's models of every data set (nil keeps them).
	Models []models.Kind
	// Generators replaces the paper's generators of every data set (nil keeps them).
	Generators []experiment.Generator
	// Overrides are the generators' hyper-parameters applied to every generator that reads them
	// (experiment.WithOverrides); none keeps the generators as they are.
	Overrides experiment.Tuning
	// Runs and Factuals replace the paper's numbers where positive.
	Runs, Factuals int
	// Seed, Mode and Sampling are every protocol's.
	Seed     uint64
	Mode     experiment.Mode
	Sampling experiment.Sampling
}

// Plan builds one validated protocol per available data set of o, in the order of o.Datasets, and lists
// the data sets it skipped (o.SkipMissing). None available is an error.
func Plan(o PlanOptions) (ps []Protocol, skipped []string, err error) {
	names := o.Datasets
	if o.SkipMissing {
		var present []string
		for _, n := range names {
			ok, err := data.Present(n, o.DataDir)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				present = append(present, n)
			} else {
				skipped = append(skipped, n)
			}
		}
		if len(present) == 0 {
			return nil, skipped, fmt.Errorf("none of %v is available here (eccco data fetch NAME)", names)
		}
		names = present
	}
	for _, name := range names {
		p, err := PaperProtocol(name)
		if err != nil {
			return nil, skipped, err
		}
		p.Seed, p.Mode, p.Sampling = o.Seed, o.Mode, o.Sampling
		if o.Generators != nil {
			p.Generators = o.Generators
		}
		if p.Generators, err = experiment.WithOverrides(p.Generators, o.Overrides); err != nil {
			return nil, skipped, err
		}
		if o.Runs > 0 {
			p.Runs = o.Runs
		}
		if o.Factuals > 0 {
			p.Factuals = o.Factuals
		}
		if o.Models != nil {
			p.Models = o.Models
		}
		if err := p.Validate(); err != nil {
			return nil, skipped, err
		}
		ps = append(ps, p)
	}
	return ps, skipped, nil
}

package main

import (
	"fmt"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/gomlx/compute"
)

// loadVAE loads REVISE's VAE saved by 'eccco vae'.
func loadVAE(_ compute.Backend, dir string) (counterfactual.LatentMap, error) {
	return nil, fmt.Errorf("loading %s: VAE loading is not wired in yet", dir)
}

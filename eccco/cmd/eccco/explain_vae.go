package main

import (
	"github.com/eccco-go/eccco-go/eccco/counterfactual"
	"github.com/eccco-go/eccco-go/eccco/vae"
	"github.com/gomlx/compute"
)

// loadVAE loads REVISE's VAE saved by 'eccco vae'.
func loadVAE(b compute.Backend, dir string) (counterfactual.LatentMap, error) {
	return vae.Load(b, dir)
}

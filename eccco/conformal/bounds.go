package conformal

import (
	"fmt"
	"math"
)

// OmegaRange is the interval of smooth set sizes Ω that a calibrated classifier can give a valid
// counterfactual, one whose target class has probability p(y⁺|x′) ≥ MinTarget. It depends only on q̂,
// T, κ, K and the empty-set rule, not on the model's weights: Ω is a function of the probability
// vector alone, and the interval is taken over every probability vector with p(y⁺) ≥ MinTarget.
//
// It explains uncertainty cells that no counterfactual could reach. With q̂ near 1 (a classifier whose
// wrong calibration predictions are confident), every class of probability near 0 still gets
// C_k = σ((q̂ − 1)/T) ≈ 1/2, so the least possible Ω of K = 10 classes is about 4.3 whatever the search
// does; with a small q̂ (a very accurate classifier) and the empty-set rule, a counterfactual that crosses
// 0.5 without reaching 1 − q̂ has an empty hard set and Ω near K − κ.
type OmegaRange struct {
	QHat, Temperature, Kappa float64
	Classes                  int
	EmptySetRule             bool
	// MinTarget is the smallest target probability of a valid counterfactual (0.5).
	MinTarget float64
	// Min and Max bound Ω over valid counterfactuals; MinAt and MaxAt are probability vectors (target
	// first) that attain them.
	Min, Max     float64
	MinAt, MaxAt []float64
}

// omegaGrid is the resolution of the search over probability vectors in ValidOmegaRange.
const omegaGrid = 200

// ValidOmegaRange returns the range of Ω = max(0, Σ_k σ((q̂ − (1 − p_k))/T) − κ) (with the empty-set rule of
// SmoothSetSizeEmptyRule when emptyRule is set) over the probability vectors p of k classes whose target
// probability is at least minTarget.
//
// The extremes of a sum of one sigmoid-shaped function of each p_k under Σ p_k = 1 lie where the
// non-target probabilities take at most two distinct non-zero values (at a stationary point the
// derivatives of the free coordinates are equal, and the derivative of a sigmoid takes each value at
// most twice). So the search runs over p_target ∈ [minTarget, 1] and, for the other k − 1 classes, a of
// them at u and b at v with a·u + b·v = 1 − p_target, on a grid of 200 steps per probability: the bounds are
// exact up to that grid (the tests check them against a dense random search).
func ValidOmegaRange(qHat, temperature, kappa float64, k int, emptyRule bool, minTarget float64) (OmegaRange, error) {
	switch {
	case k < 2:
		return OmegaRange{}, fmt.Errorf("conformal: %d classes, need at least 2", k)
	case !(temperature > 0) || math.IsInf(temperature, 0):
		return OmegaRange{}, fmt.Errorf("conformal: temperature %v, must be positive and finite", temperature)
	case math.IsNaN(qHat) || math.IsNaN(kappa) || !(minTarget >= 0 && minTarget <= 1):
		return OmegaRange{}, fmt.Errorf("conformal: q̂ %v, κ %v, minimum target probability %v", qHat, kappa, minTarget)
	}
	r := OmegaRange{QHat: qHat, Temperature: temperature, Kappa: kappa, Classes: k, EmptySetRule: emptyRule, MinTarget: minTarget}
	p := make([]float64, k)
	// omega evaluates the candidate (p_target, a coordinates at u, b at v = (1 − p_target − a·u)/b).
	omega := func(c candidate) float64 {
		c.fill(p)
		return OmegaOf(p, qHat, temperature, kappa, emptyRule)
	}
	lo, hi := candidate{w: math.Inf(1)}, candidate{w: math.Inf(-1)}
	consider := func(c candidate) {
		c.w = omega(c)
		if c.w < lo.w {
			lo = c
		}
		if c.w > hi.w {
			hi = c
		}
	}
	others := k - 1
	for i := 0; i <= omegaGrid; i++ {
		pt := minTarget + (1-minTarget)*float64(i)/omegaGrid
		for a := 1; a <= others; a++ {
			for b := 0; a+b <= others; b++ {
				steps := omegaGrid
				if b == 0 {
					steps = 0 // u = (1 − p_target)/a
				}
				for j := 0; j <= steps; j++ {
					f := 1.0
					if steps > 0 {
						f = float64(j) / float64(steps)
					}
					consider(candidate{pt: pt, a: a, b: b, f: f})
				}
			}
		}
	}
	// Refine both extremes around their best grid point: a finer grid over p_target and u, four times.
	for _, best := range []*candidate{&lo, &hi} {
		dp, df := (1-minTarget)/omegaGrid, 1.0/omegaGrid
		for range 4 {
			c0 := *best
			for i := -omegaRefine; i <= omegaRefine; i++ {
				for j := -omegaRefine; j <= omegaRefine; j++ {
					c := c0
					c.pt = min(max(c0.pt+dp*float64(i)/omegaRefine, minTarget), 1)
					if c.b > 0 {
						c.f = min(max(c0.f+df*float64(j)/omegaRefine, 0), 1)
					}
					c.w = omega(c)
					if (best == &lo && c.w < best.w) || (best == &hi && c.w > best.w) {
						*best = c
					}
				}
			}
			dp, df = dp/omegaRefine, df/omegaRefine
		}
	}
	r.Min, r.MinAt = lo.w, lo.vector(k)
	r.Max, r.MaxAt = hi.w, hi.vector(k)
	return r, nil
}

// omegaRefine is the half-width, in steps, of each refinement grid of ValidOmegaRange.
const omegaRefine = 20

// candidate is a probability vector of ValidOmegaRange's search: the target first at pt, then a classes
// at u = f·(1 − pt)/a and b classes sharing what is left equally, the rest at 0; w is its Ω.
type candidate struct {
	pt   float64
	a, b int
	f, w float64
}

func (c candidate) fill(p []float64) {
	clear(p)
	rest := 1 - c.pt
	u := c.f * rest / float64(c.a)
	p[0] = c.pt
	for i := 1; i <= c.a; i++ {
		p[i] = u
	}
	if c.b > 0 {
		v := max(rest-float64(c.a)*u, 0) / float64(c.b)
		for i := c.a + 1; i <= c.a+c.b; i++ {
			p[i] = v
		}
	}
}

func (c candidate) vector(k int) []float64 {
	p := make([]float64, k)
	c.fill(p)
	return p
}

// OmegaOf is Ω of one probability vector p (float64, in Go): max(0, Σ_k σ((q̂ − (1 − p_k))/T) − κ), with
// the empty-set rule (Σ_k (1 − C_k) in place of Σ_k C_k when no class has 1 − p_k ≤ q̂) when emptyRule is
// set. It is the function SmoothSetSize and SmoothSetSizeEmptyRule build in a graph.
func OmegaOf(p []float64, qHat, temperature, kappa float64, emptyRule bool) float64 {
	sum, inv, empty := 0.0, 0.0, true
	for _, pk := range p {
		s := 1 - pk
		c := 1 / (1 + math.Exp(-(qHat-s)/temperature))
		sum += c
		inv += 1 - c
		if s <= qHat {
			empty = false
		}
	}
	if emptyRule && empty {
		sum = inv
	}
	return max(0, sum-kappa)
}

package experiment

import (
	"fmt"
	"strings"
)

// Sampling says how the SGLD samples behind the unfaithfulness metric are drawn.
type Sampling string

const (
	// PerRun (the default) draws one set of samples per class for each run of a model, shared by every
	// counterfactual of that run and every generator: the paper's definition, and far cheaper.
	PerRun Sampling = "per-run"
	// PerCounterfactual draws a set of its own for every factual of a run (in one batched SGLD run of
	// B·Chains chains), as the authors' code did: ECCCo.jl built a new EnergySampler for each
	// counterfactual explanation (src/penalties.jl, distance_from_energy; the metric in
	// src/penalties.jl:121-134). The generators that explain a factual share its set: each generator's
	// numbers are distributed as the authors' (only the correlation between generators differs). The run
	// means then average B independent draws instead of sharing one, so their spread over runs is smaller.
	// The ECCCo-L1 family, when scored against its own samples (Settings.OwnSamplesUnfaithfulness), then
	// draws those per factual too (10 chains of 100 steps towards its target, as ECCCo.jl's cached sampler
	// of each explanation did): its penalty pulls each row towards its own lowest-energy sample and its
	// metric reads that row's 10.
	PerCounterfactual Sampling = "per-counterfactual"
)

// ParseSampling reads "per-run" (also "") or "per-counterfactual" (also "per-cf").
func ParseSampling(s string) (Sampling, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "per-run", "run":
		return PerRun, nil
	case "per-counterfactual", "per-cf", "counterfactual":
		return PerCounterfactual, nil
	}
	return "", fmt.Errorf("%w: unknown sampling %q (want per-run or per-counterfactual)", ErrInvalid, s)
}

// String returns the sampling's name.
func (s Sampling) String() string {
	if s == "" {
		return string(PerRun)
	}
	return string(s)
}

// Validate reports an unknown sampling (the empty one is PerRun).
func (s Sampling) Validate() error {
	if s != "" && s != PerRun && s != PerCounterfactual {
		return fmt.Errorf("%w: sampling %q (want %q or %q)", ErrInvalid, string(s), PerRun, PerCounterfactual)
	}
	return nil
}

package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eccco-go/eccco-go/eccco/counterfactual"
)

// SetGroup names a group of keys that ParseSet accepts.
type SetGroup int

const (
	// SetTraining: epochs, lenet-epochs, vae-epochs, batch-size, lr (Training).
	SetTraining SetGroup = iota
	// SetSampling: sampling=per-run|per-counterfactual (Sampling).
	SetSampling
	// SetSearch: max-iter (the search's step limit) and stop (its convergence rule: parseStop).
	SetSearch
	// SetGenerator: the generators' hyper-parameters (ParamKeys; Tuning).
	SetGenerator
	// SetSampler: chains, keep, steps, sgld-step, noise, clip, unbiased (Sampler).
	SetSampler
	// SetSettings: the switches of Settings (SettingKeys) and authors-models-dir.
	SetSettings
)

// setKeys lists each group's keys.
func setKeys(g SetGroup) []string {
	switch g {
	case SetTraining:
		return []string{"epochs", "lenet-epochs", "vae-epochs", "batch-size", "lr"}
	case SetSampling:
		return []string{"sampling"}
	case SetSearch:
		return []string{"max-iter", "stop"}
	case SetGenerator:
		return ParamKeys()
	case SetSampler:
		return []string{"chains", "keep", "steps", "sgld-step", "noise", "clip", "unbiased"}
	case SetSettings:
		return append(SettingKeys(), "authors-models-dir")
	}
	return nil
}

// SetKeys lists the keys ParseSet accepts for the groups, in the groups' order.
func SetKeys(groups ...SetGroup) []string {
	var keys []string
	for _, g := range groups {
		keys = append(keys, setKeys(g)...)
	}
	return keys
}

// Overrides are the values of key=value pairs (ParseSet); zero fields keep the defaults.
type Overrides struct {
	// Training overrides the paper's training settings (Options.Training).
	Training Training
	// Sampling is the unfaithfulness samples' drawing ("" keeps PerRun; Options.Sampling).
	Sampling Sampling
	// MaxIterations bounds each search (0: counterfactual.DefaultMaxIterations; Run.MaxIterations).
	MaxIterations int
	// Stop is the search's convergence rule (parseStop; nil keeps the mode's).
	Stop *counterfactual.Rule
	// Generator overrides the generators' hyper-parameters (Generator.Set; WithOverrides applies it).
	Generator Tuning
	// Sampler overrides the sampler of `eccco sample` (Experiment.Sample).
	Sampler Sampler
	// Settings overrides switches of the mode's Settings (Options.Set).
	Settings map[string]string
	// AuthorsModelsDir is Options.AuthorsModelsDir.
	AuthorsModelsDir string
}

// maxChains bounds --set chains= and keep=: the samples are allocated up front (100,000 MNIST samples
// take 314 MB as float32).
const maxChains = 100_000

// maxIterationsLimit bounds --set max-iter: 10⁴ times the paper's 100 steps.
const maxIterationsLimit = 1_000_000

// ParseSet reads key=value pairs, each argument holding one or a comma-separated list of them, into
// Overrides. Only the keys of the given groups are accepted: an unknown key, a key given twice or a value
// that does not parse is ErrInvalid, naming the key and the keys accepted. A boolean key reads the
// spellings of strconv.ParseBool (1, t, T, TRUE, true, True and 0, f, F, FALSE, false, False), and its
// value is kept as true or false. authors-models-dir with authors-models off is ErrInvalid.
func ParseSet(args []string, groups ...SetGroup) (Overrides, error) {
	var o Overrides
	valid := SetKeys(groups...)
	seen := map[string]bool{}
	for _, arg := range args {
		for kv := range strings.SplitSeq(arg, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			k, v, ok := strings.Cut(kv, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" {
				return o, fmt.Errorf("%w: %q is not key=value (keys: %s)", ErrInvalid, kv, strings.Join(valid, ", "))
			}
			if !slices.Contains(valid, k) {
				return o, fmt.Errorf("%w: unknown key %q (keys: %s)", ErrInvalid, k, strings.Join(valid, ", "))
			}
			if seen[k] {
				return o, fmt.Errorf("%w: key %q is given twice", ErrInvalid, k)
			}
			seen[k] = true
			if err := o.set(k, v); err != nil {
				// (the value's own check may say "invalid setting" too: once is enough)
				return o, fmt.Errorf("%w: %s=%s: %s", ErrInvalid, k, v, strings.ReplaceAll(err.Error(), ErrInvalid.Error()+": ", ""))
			}
		}
	}
	if _, both := o.Settings["stop-on-all-conditions"]; both && o.Stop != nil {
		return o, fmt.Errorf("%w: stop and stop-on-all-conditions are both given; give stop alone (stop=all-conditions is stop-on-all-conditions=true)", ErrInvalid)
	}
	if on, given := o.AuthorsModels(); given && !on && o.AuthorsModelsDir != "" {
		return o, fmt.Errorf("%w: authors-models-dir=%s names the authors' model files, but authors-models=false says not to use them; give one of the two", ErrInvalid, o.AuthorsModelsDir)
	}
	if err := o.Training.Validate(); err != nil {
		return o, err
	}
	return o, o.Sampler.Validate()
}

// AuthorsModels is the value of authors-models (any spelling strconv.ParseBool reads) and whether it was
// given; where it was not, the mode decides (authors-code explains the authors' models).
func (o Overrides) AuthorsModels() (on, given bool) {
	v, given := o.Settings["authors-models"]
	return v == "true", given
}

func (o *Overrides) set(k, v string) error {
	nonNeg := func(dst *int) error {
		n, err := strconv.Atoi(v)
		if err == nil && n < 0 {
			err = fmt.Errorf("must not be negative")
		}
		*dst = n
		return err
	}
	float := func() (*float64, error) {
		f, err := strconv.ParseFloat(v, 64)
		return &f, err
	}
	var err error
	switch k {
	case "epochs":
		err = nonNeg(&o.Training.Epochs)
	case "lenet-epochs":
		err = nonNeg(&o.Training.LeNetEpochs)
	case "vae-epochs":
		err = nonNeg(&o.Training.VAEEpochs)
	case "batch-size":
		err = nonNeg(&o.Training.BatchSize)
	case "lr":
		o.Training.LearningRate, err = strconv.ParseFloat(v, 64)
	case "sampling":
		o.Sampling, err = ParseSampling(v)
	case "max-iter":
		if err = nonNeg(&o.MaxIterations); err == nil && o.MaxIterations == 0 {
			err = fmt.Errorf("must be at least 1")
		} else if err == nil && o.MaxIterations > maxIterationsLimit {
			err = fmt.Errorf("at most %d (the default is %d; a search that does not stop by its rule takes every step)", maxIterationsLimit, counterfactual.DefaultMaxIterations)
		}
	case "stop":
		var r counterfactual.Rule
		if r, err = parseStop(v); err == nil {
			o.Stop = &r
		}
	case "chains":
		if err = nonNeg(&o.Sampler.Chains); err == nil && o.Sampler.Chains > maxChains {
			err = fmt.Errorf("at most %d (each chain holds a sample in memory)", maxChains)
		}
	case "keep":
		if err = nonNeg(&o.Sampler.Keep); err == nil && o.Sampler.Keep > maxChains {
			err = fmt.Errorf("at most %d (each kept sample is held in memory)", maxChains)
		}
	case "steps":
		err = nonNeg(&o.Sampler.Steps)
	case "sgld-step":
		o.Sampler.StepSize, err = float()
	case "noise":
		o.Sampler.NoiseSD, err = float()
	case "clip":
		o.Sampler.ClipGrad, err = float()
	case "unbiased":
		o.Sampler.Unbiased, err = strconv.ParseBool(v)
	case "authors-models-dir":
		o.AuthorsModelsDir = v
	default:
		if slices.Contains(ParamKeys(), k) {
			var f *float64
			if f, err = float(); err == nil {
				err = o.Generator.set("--set", k, *f, k+"="+v)
			}
			break
		}
		var s Settings
		if err = s.assign(k, v); err == nil {
			if o.Settings == nil {
				o.Settings = map[string]string{}
			}
			if b, ok := s.boolValue(k); ok {
				v = strconv.FormatBool(b) // one spelling: 1, t, True, … are recorded as true
			}
			o.Settings[k] = v
		}
	}
	return err
}

// stopNames are the values of --set stop, in counterfactual.Rule's order.
var stopNames = []string{"conditions", "valid", "max-iter", "all-conditions"}

// parseStop reads a convergence rule (--set stop=…): "conditions", the paper's generator conditions
// (p(y⁺|x′) ≥ 0.5 and every |∂objective/∂x′| < 0.01; Schut's JSMA the threshold alone;
// counterfactual.GeneratorConditions), "all-conditions" (the same for Schut too, as the authors' runs
// stopped it: counterfactual.GeneratorConditionsAll), "valid" (as soon as p(y⁺|x′) ≥ 0.5:
// counterfactual.DecisionThreshold) or "max-iter" (never early: every search takes max-iter steps;
// counterfactual.MaxIterations).
func parseStop(v string) (counterfactual.Rule, error) {
	if i := slices.Index(stopNames, strings.ToLower(strings.TrimSpace(v))); i >= 0 {
		return counterfactual.Rule(i), nil
	}
	return 0, fmt.Errorf("not a convergence rule; one of %s", strings.Join(stopNames, ", "))
}

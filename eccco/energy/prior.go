package energy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// Prior is the uniform distribution over the box [Lower, Upper] from which fresh SGLD chains start.
type Prior struct {
	Lower, Upper []float32
}

// PriorWidthSD is the half-width of the prior box in standard deviations: mean ± 3 sd.
const PriorWidthSD = 3.0

// NewPrior returns the uniform prior over explicit bounds (copied).
func NewPrior(lower, upper []float32) (Prior, error) {
	p := Prior{Lower: append([]float32(nil), lower...), Upper: append([]float32(nil), upper...)}
	return p, p.Validate()
}

// PriorFromData returns the prior of the authors' JEM code for a training set: per feature uniform over
// mean ± 3 sample sd; for images (ds.Image set) uniform over [−1, 1].
func PriorFromData(ds *data.Dataset) (Prior, error) {
	if ds == nil || ds.N() == 0 || ds.D() == 0 {
		return Prior{}, fmt.Errorf("prior: empty data set")
	}
	d := ds.D()
	p := Prior{Lower: make([]float32, d), Upper: make([]float32, d)}
	if ds.Image != nil {
		for j := range d {
			p.Lower[j], p.Upper[j] = -1, 1
		}
		return p, nil
	}
	std := data.FitStandardizer(ds)
	for j := range d {
		sd := std.Scale[j]
		if ds.N() < 2 {
			sd = 0
		}
		p.Lower[j] = float32(std.Mean[j] - PriorWidthSD*sd)
		p.Upper[j] = float32(std.Mean[j] + PriorWidthSD*sd)
	}
	return p, p.Validate()
}

// ScalarPrior returns the prior of the authors' inference sampler (ECCCo.jl's prior_sampling_space,
// src/utils.jl:66-73): one range for every feature, from the smallest mean − 3 sd to the largest mean + 3 sd
// of any feature of ds (sample sd), i.e. the envelope of PriorFromData's boxes. For standardised tabular
// data it is about [−3, 3] for every feature, like PriorFromData; for the synthetic sets it is wider.
func ScalarPrior(ds *data.Dataset) (Prior, error) {
	if ds == nil || ds.N() == 0 || ds.D() == 0 {
		return Prior{}, fmt.Errorf("prior: empty data set")
	}
	std := data.FitStandardizer(ds)
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range ds.D() {
		sd := std.Scale[j]
		if ds.N() < 2 {
			sd = 0
		}
		lo = math.Min(lo, std.Mean[j]-PriorWidthSD*sd)
		hi = math.Max(hi, std.Mean[j]+PriorWidthSD*sd)
	}
	d := ds.D()
	p := Prior{Lower: make([]float32, d), Upper: make([]float32, d)}
	for j := range d {
		p.Lower[j], p.Upper[j] = float32(lo), float32(hi)
	}
	return p, p.Validate()
}

// ExtremaPrior returns every feature uniform over the same range, the smallest to the largest value of
// any feature in ds: one reading of the prior of the authors' inference sampler (ECCCo.jl's
// EnergySampler, Uniform(extrema(X))). AuthorsClassOptions says why the benchmark uses PriorFromData.
func ExtremaPrior(ds *data.Dataset) (Prior, error) {
	if ds == nil || ds.N() == 0 || ds.D() == 0 {
		return Prior{}, fmt.Errorf("prior: empty data set")
	}
	lo, hi := ds.X[0], ds.X[0]
	for _, v := range ds.X {
		lo, hi = min(lo, v), max(hi, v)
	}
	d := ds.D()
	p := Prior{Lower: make([]float32, d), Upper: make([]float32, d)}
	for j := range d {
		p.Lower[j], p.Upper[j] = lo, hi
	}
	return p, p.Validate()
}

// D returns the number of features.
func (p Prior) D() int { return len(p.Lower) }

// Validate checks that the bounds are finite, ordered and of equal length.
func (p Prior) Validate() error {
	if len(p.Lower) == 0 || len(p.Lower) != len(p.Upper) {
		return fmt.Errorf("prior: bounds have %d and %d values", len(p.Lower), len(p.Upper))
	}
	for j := range p.Lower {
		lo, hi := float64(p.Lower[j]), float64(p.Upper[j])
		if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > hi {
			return fmt.Errorf("prior: feature %d has bounds [%v, %v]", j, lo, hi)
		}
	}
	return nil
}

// Draw returns n points (row-major, n·D values) drawn uniformly from the box.
func (p Prior) Draw(n int, rng *rand.Rand) []float32 {
	d := p.D()
	out := make([]float32, n*d)
	for i := range n {
		for j := range d {
			out[i*d+j] = p.Lower[j] + float32(rng.Float64())*(p.Upper[j]-p.Lower[j])
		}
	}
	return out
}

// Replay-buffer defaults of the paper (appendix): up to 10,000 samples, 5% of chains started fresh.
const (
	DefaultBufferCapacity = 10000
	DefaultReinitFraction = 0.05
)

// ReplayBuffer stores past SGLD samples to start new chains from (persistent contrastive divergence, as in
// Du & Mordatch 2019 and Grathwohl et al. 2020). When full, the oldest samples are overwritten.
type ReplayBuffer struct {
	// Prior supplies fresh starting points.
	Prior Prior
	// Capacity is the maximum number of stored samples.
	Capacity int
	// ReinitFraction is the probability that a chain starts fresh from the prior.
	ReinitFraction float64

	rows []float32 // ring of up to Capacity rows
	next int       // ring position of the next write once full
}

// NewReplayBuffer returns an empty buffer with the paper's defaults (capacity 10,000, 5% fresh starts).
func NewReplayBuffer(prior Prior) *ReplayBuffer {
	return &ReplayBuffer{Prior: prior, Capacity: DefaultBufferCapacity, ReinitFraction: DefaultReinitFraction}
}

// Len returns the number of stored samples.
func (b *ReplayBuffer) Len() int {
	if b.Prior.D() == 0 {
		return 0
	}
	return len(b.rows) / b.Prior.D()
}

// Init returns n starting points (n·D values): each is, independently, fresh from the prior with
// probability ReinitFraction (always while the buffer is empty) and otherwise a uniformly chosen stored
// sample.
func (b *ReplayBuffer) Init(n int, rng *rand.Rand) []float32 {
	d := b.Prior.D()
	slots, out := b.draw(n, b.Len(), rng)
	for i, r := range slots {
		if r >= 0 {
			copy(out[i*d:(i+1)*d], b.rows[r*d:(r+1)*d])
		}
	}
	return out
}

// draw makes Init's random choices for n chains of a buffer that holds stored samples: slots[i] is the
// stored sample chain i starts from, or −1 where the chain starts fresh, from fresh[i·D:(i+1)·D] (drawn
// from the prior; the rows of the other chains are zero). The draws from rng do not depend on what the
// buffer holds, only on how many samples, so a caller can make them ahead of the samples (TrainJEM's
// chunks of minibatches).
func (b *ReplayBuffer) draw(n, stored int, rng *rand.Rand) (slots []int, fresh []float32) {
	d := b.Prior.D()
	slots, fresh = make([]int, n), make([]float32, n*d)
	for i := range n {
		if stored == 0 || rng.Float64() < b.ReinitFraction {
			copy(fresh[i*d:(i+1)*d], b.Prior.Draw(1, rng))
			slots[i] = -1
			continue
		}
		slots[i] = rng.IntN(stored)
	}
	return slots, fresh
}

// Add stores samples (row-major, a whole number of rows), overwriting the oldest when full.
func (b *ReplayBuffer) Add(samples []float32) error {
	d := b.Prior.D()
	if d == 0 || len(samples)%d != 0 {
		return fmt.Errorf("replay buffer: %d values are not whole rows of %d features", len(samples), d)
	}
	if b.Capacity <= 0 {
		return fmt.Errorf("replay buffer: Capacity = %d, must be positive", b.Capacity)
	}
	var slots []int
	slots, _, b.next = b.writeSlots(b.Len(), b.next, len(samples)/d)
	for i, r := range slots {
		row := samples[i*d : (i+1)*d]
		if r == b.Len() {
			b.rows = append(b.rows, row...)
			continue
		}
		copy(b.rows[r*d:(r+1)*d], row)
	}
	return nil
}

// writeSlots returns the slots that Add writes n rows to, in order, when the buffer holds stored samples
// and its ring position is next, and the number stored and the ring position afterwards: the slots after
// the stored ones until Capacity, then the oldest, from next on.
func (b *ReplayBuffer) writeSlots(stored, next, n int) (slots []int, storedAfter, nextAfter int) {
	slots = make([]int, n)
	for i := range slots {
		if stored < b.Capacity {
			slots[i] = stored
			stored++
			continue
		}
		slots[i] = next
		next = (next + 1) % b.Capacity
	}
	return slots, stored, next
}

// LowestEnergy returns the n samples (rows of samples; D = len(samples)/len(energies)) with the lowest
// energies, in ascending order of energy (ties keep their order; NaN energies rank last), with their
// energies and their indices.
func LowestEnergy(samples, energies []float32, n int) (selected, selEnergies []float32, index []int, err error) {
	m := len(energies)
	if m == 0 || len(samples)%m != 0 {
		return nil, nil, nil, fmt.Errorf("lowest energy: %d values for %d energies", len(samples), m)
	}
	if n < 0 || n > m {
		return nil, nil, nil, fmt.Errorf("lowest energy: asked for %d of %d samples", n, m)
	}
	d := len(samples) / m
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		e := float64(energies[i])
		if math.IsNaN(e) {
			return math.Inf(1)
		}
		return e
	}
	sort.SliceStable(idx, func(a, b int) bool { return key(idx[a]) < key(idx[b]) })
	idx = idx[:n]
	selected = make([]float32, 0, n*d)
	selEnergies = make([]float32, 0, n)
	for _, i := range idx {
		selected = append(selected, samples[i*d:(i+1)*d]...)
		selEnergies = append(selEnergies, energies[i])
	}
	return selected, selEnergies, idx, nil
}

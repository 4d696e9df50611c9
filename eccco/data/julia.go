package data

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/bits"
)

// juliaRNG replays the default random number generator of Julia 1.7 to 1.10 (the authors ran 1.9.3 and
// 1.9.4: ECCCo.jl experiments/Manifest.toml:3 at d0ada1d and at 78925f6): Xoshiro256++ seeded as
// Random.seed!(n) seeds it, and the few draws that the authors' data preparation made from it: rand() for
// Float64s, randn() (the ziggurat of stdlib/Random/src/normal.jl), randperm and rand(a:b). It exists to
// rebuild data the authors generated from a fixed seed (AuthorsLinearlySeparable); nothing else in eccco
// draws from it.
type juliaRNG struct{ s [4]uint64 }

// newJuliaRNG seeds like Random.seed!(rng, seed) for a non-negative seed below 2³²: the SHA-256 of the
// seed's UInt32 words (make_seed), read as four little-endian UInt64s (stdlib/Random/src/Xoshiro.jl).
func newJuliaRNG(seed uint32) *juliaRNG {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], seed)
	d := sha256.Sum256(b[:])
	r := &juliaRNG{}
	for i := range r.s {
		r.s[i] = binary.LittleEndian.Uint64(d[8*i:])
	}
	return r
}

// uint64 is rand(rng, UInt64): one Xoshiro256++ step.
func (r *juliaRNG) uint64() uint64 {
	s0, s1, s2, s3 := r.s[0], r.s[1], r.s[2], r.s[3]
	res := bits.RotateLeft64(s0+s3, 23) + s0
	t := s1 << 17
	s2 ^= s0
	s3 ^= s1
	s1 ^= s2
	s0 ^= s3
	s2 ^= t
	s3 = bits.RotateLeft64(s3, 45)
	r.s = [4]uint64{s0, s1, s2, s3}
	return res
}

// float64 is rand(rng): the top 53 bits scaled to [0, 1). Arrays of fewer than 8 Float64s (rand(rng, 2,
// 2)) are filled the same way, one draw per element (XoshiroSimd.jl's threshold is 64 bytes).
func (r *juliaRNG) float64() float64 { return float64(r.uint64()>>11) * 0x1p-53 }

// uint52 is rand(rng, UInt52()): the top 52 bits.
func (r *juliaRNG) uint52() uint64 { return r.uint64() >> 12 }

// intIn is rand(rng, a:b) for Int64 ranges: Lemire's nearly divisionless sampler (SamplerRangeNDL).
func (r *juliaRNG) intIn(a, b int) int {
	s := uint64(b - a + 1)
	hi, lo := bits.Mul64(r.uint64(), s)
	if lo < s {
		t := -s % s
		for lo < t {
			hi, lo = bits.Mul64(r.uint64(), s)
		}
	}
	return int(hi) + a
}

// sampleWithoutReplacement is StatsBase's sample(rng, a, k; replace = false) where StatsBase 0.34 picks
// fisher_yates_sample! (k > 2 and length(a) < 24k, src/sampling.jl): a partial Fisher–Yates shuffle of
// the positions, drawing rand(rng, i:n) for i = 1 … k.
func (r *juliaRNG) sampleWithoutReplacement(a []int, k int) []int {
	inds := make([]int, len(a))
	for i := range inds {
		inds[i] = i
	}
	out := make([]int, k)
	for i := range k {
		j := r.intIn(i+1, len(a)) - 1
		inds[i], inds[j] = inds[j], inds[i]
		out[i] = a[inds[i]]
	}
	return out
}

// randperm is randperm(rng, n), 1-based values.
func (r *juliaRNG) randperm(n int) []int {
	a := make([]int, n)
	if n == 0 {
		return a
	}
	a[0] = 1
	mask := uint64(3)
	for i := 2; i <= n; i++ {
		var v uint64
		for {
			if v = r.uint52() & mask; v <= uint64(i-1) {
				break
			}
		}
		j := int(v) + 1
		if i != j {
			a[i-1] = a[j-1]
		}
		a[j-1] = i
		if uint64(i) == 1+mask {
			mask = 2*mask + 1
		}
	}
	return a
}

// The ziggurat of Julia's randn (Marsaglia and Tsang's, as randmtzig builds it: 256 strips, 51-bit
// integers). Julia stores the tables as literals; they are computed here the way randmtzig computes them,
// with the strip area v solved from Julia's own first entries (ki[1] = 0x0007799ec012f7b2 and wi[1] =
// 1.7367254121602630e-15 both give v = 0.004928673233974657), and agree with Julia's literals to about
// 2·10⁻¹⁴ relative (e.g. ki[3] 0x0006045f4c7de330 against 0x0006045f4c7de363): a float32 coordinate
// could differ only if a draw fell within that of a rounding boundary.
const (
	zigNorR       = 3.6541528853610088
	zigNorInvR    = 0.27366123732975828
	zigNorSection = 0.004928673233974657
)

var zigKi, zigWi, zigFi = zigguratTables()

func zigguratTables() (ki [256]uint64, wi, fi [256]float64) {
	const m = 0x1p51
	x1 := zigNorR
	wi[255] = x1 / m
	fi[255] = math.Exp(-0.5 * x1 * x1)
	ki[0] = uint64(x1 * fi[255] / zigNorSection * m)
	wi[0] = zigNorSection / fi[255] / m
	fi[0] = 1
	for i := 254; i > 0; i-- {
		x := math.Sqrt(-2 * math.Log(zigNorSection/x1+fi[i+1]))
		ki[i+1] = uint64(x / x1 * m)
		wi[i] = x / m
		fi[i] = math.Exp(-0.5 * x * x)
		x1 = x
	}
	ki[1] = 0
	return ki, wi, fi
}

// normFloat64 is randn(rng) (stdlib/Random/src/normal.jl, randn and randn_unlikely).
func (r *juliaRNG) normFloat64() float64 {
	for {
		u := r.uint52()
		rabs := int64(u >> 1)
		idx := rabs & 0xFF
		x := float64(rabs) * zigWi[idx]
		if u&1 == 1 {
			x = -x
		}
		if rabs < int64(zigKi[idx]) {
			return x
		}
		if idx == 0 {
			for {
				xx := -zigNorInvR * math.Log(r.float64())
				yy := -math.Log(r.float64())
				if yy+yy > xx*xx {
					if (rabs>>8)&1 == 1 {
						return -zigNorR - xx
					}
					return zigNorR + xx
				}
			}
		}
		if (zigFi[idx-1]-zigFi[idx])*r.float64()+zigFi[idx] < math.Exp(-0.5*x*x) {
			return x
		}
	}
}

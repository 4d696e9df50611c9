package models

import (
	"encoding/binary"
	"math"
)

// JuliaArray is a dense Float32 or Float64 array found in a stream written by Julia's Serialization
// standard library (serialize(io, x); the format of the authors' *_models.jls files).
//
// Julia writes an isbits array as ARRAY_TAG (0x15), a flag byte (0x00), its element type's tag
// (Float32 0x0d, Float64 0x0e), its dimensions (a vector's length as an Int; a matrix's size as a tuple:
// TUPLE_TAG 0x14, the count, then each Int) and the raw little-endian elements in column-major order.
// An Int n in 0…32 is the single byte 0xdf + n; a larger one SHORTINT64_TAG (0x31) and an int32, or
// INT64_TAG (0x08) and an int64 (Serialization.jl: serialize_array_data, serialize(::Int64)).
type JuliaArray struct {
	Offset int       // byte offset of the ARRAY_TAG in the stream
	Dims   []int     // Julia's dimensions: a Flux Dense weight is [out, in]
	F32    []float32 // the elements when the element type is Float32 (column-major)
	F64    []float64 // the elements when it is Float64 (column-major)
}

// Len is the number of elements.
func (a JuliaArray) Len() int {
	n := 1
	for _, d := range a.Dims {
		n *= d
	}
	return n
}

// The Serialization tags ScanJuliaArrays reads (Julia 1.9, ser_version 20; TAGS in Serialization.jl).
const (
	juliaArrayTag    = 0x15
	juliaTupleTag    = 0x14
	juliaFloat32Tag  = 0x0d
	juliaFloat64Tag  = 0x0e
	juliaShortInt64  = 0x31
	juliaInt64Tag    = 0x08
	juliaIntLiteral0 = 0xdf // the tag of the Int literal 0; 1…32 follow
	juliaIntLiterals = 33
)

// ScanJuliaArrays returns, in stream order, every Float32 and Float64 array a Julia Serialization stream
// holds in full. It does not rebuild the objects around them (structs, dictionaries, back-references):
// an array written once and referred to again is found once, where it was written. A byte sequence
// that only looks like an array header is skipped unless its dimensions are plausible and its data
// fit the stream; the callers check what they find against the architecture they expect.
func ScanJuliaArrays(b []byte) []JuliaArray {
	var out []JuliaArray
	for p := 0; p+3 < len(b); {
		a, next, ok := juliaArrayAt(b, p)
		if !ok {
			p++
			continue
		}
		out = append(out, a)
		p = next
	}
	return out
}

// juliaArrayAt parses an array header and its data at p.
func juliaArrayAt(b []byte, p int) (JuliaArray, int, bool) {
	if b[p] != juliaArrayTag || b[p+1] != 0x00 || (b[p+2] != juliaFloat32Tag && b[p+2] != juliaFloat64Tag) {
		return JuliaArray{}, 0, false
	}
	width := 4
	if b[p+2] == juliaFloat64Tag {
		width = 8
	}
	q := p + 3
	var dims []int
	if q < len(b) && b[q] == juliaTupleTag {
		if q+1 >= len(b) {
			return JuliaArray{}, 0, false
		}
		n := int(b[q+1])
		q += 2
		if n < 2 || n > 4 {
			return JuliaArray{}, 0, false
		}
		for range n {
			v, next, ok := juliaInt(b, q)
			if !ok {
				return JuliaArray{}, 0, false
			}
			dims, q = append(dims, v), next
		}
	} else {
		v, next, ok := juliaInt(b, q)
		if !ok {
			return JuliaArray{}, 0, false
		}
		dims, q = []int{v}, next
	}
	size := 1
	for _, d := range dims {
		if d < 0 || d > 1<<28 {
			return JuliaArray{}, 0, false
		}
		size *= d
		if size > len(b) {
			return JuliaArray{}, 0, false
		}
	}
	end := q + size*width
	if end > len(b) {
		return JuliaArray{}, 0, false
	}
	a := JuliaArray{Offset: p, Dims: dims}
	if width == 4 {
		a.F32 = make([]float32, size)
		for i := range a.F32 {
			a.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[q+4*i:]))
		}
	} else {
		a.F64 = make([]float64, size)
		for i := range a.F64 {
			a.F64[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[q+8*i:]))
		}
	}
	return a, end, true
}

// juliaInt reads a serialized Int at p.
func juliaInt(b []byte, p int) (int, int, bool) {
	if p >= len(b) {
		return 0, 0, false
	}
	switch t := b[p]; {
	case t >= juliaIntLiteral0 && int(t) < juliaIntLiteral0+juliaIntLiterals:
		return int(t) - juliaIntLiteral0, p + 1, true
	case t == juliaShortInt64 && p+5 <= len(b):
		return int(int32(binary.LittleEndian.Uint32(b[p+1:]))), p + 5, true
	case t == juliaInt64Tag && p+9 <= len(b):
		return int(int64(binary.LittleEndian.Uint64(b[p+1:]))), p + 9, true
	}
	return 0, 0, false
}

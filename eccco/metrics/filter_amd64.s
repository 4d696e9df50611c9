//go:build amd64 && !noasm

#include "textflag.h"

// AVX2 kernels of filter.go: the same IEEE operations per element as its loops (a product rounded, then
// added; sums from +0 in the order of their terms), four doubles per instruction.

// func filterTapsAVX2(dst *float64, n int, src *float64, k *float64, nk int, stride int)
// dst[i] = Σ_t k[t]·src[i + t·stride] for i < n (n a multiple of 4, nk ≥ 1); sixteen outputs at a time
// in four independent accumulators, then four at a time.
TEXT ·filterTapsAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ k+24(FP), R8
	MOVQ nk+32(FP), R9
	MOVQ stride+40(FP), R10
	SHLQ $3, R10

loop16:
	CMPQ CX, $16
	JL   loop4
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ SI, R11
	MOVQ R8, R12
	MOVQ R9, R13

tap16:
	VBROADCASTSD (R12), Y4
	VMULPD       (R11), Y4, Y5
	VADDPD       Y5, Y0, Y0
	VMULPD       32(R11), Y4, Y6
	VADDPD       Y6, Y1, Y1
	VMULPD       64(R11), Y4, Y7
	VADDPD       Y7, Y2, Y2
	VMULPD       96(R11), Y4, Y8
	VADDPD       Y8, Y3, Y3
	ADDQ         R10, R11
	ADDQ         $8, R12
	DECQ         R13
	JNZ          tap16
	VMOVUPD      Y0, (DI)
	VMOVUPD      Y1, 32(DI)
	VMOVUPD      Y2, 64(DI)
	VMOVUPD      Y3, 96(DI)
	ADDQ         $128, DI
	ADDQ         $128, SI
	SUBQ         $16, CX
	JMP          loop16

loop4:
	CMPQ CX, $4
	JL   done
	VXORPD Y0, Y0, Y0
	MOVQ SI, R11
	MOVQ R8, R12
	MOVQ R9, R13

tap4:
	VBROADCASTSD (R12), Y4
	VMULPD       (R11), Y4, Y5
	VADDPD       Y5, Y0, Y0
	ADDQ         R10, R11
	ADDQ         $8, R12
	DECQ         R13
	JNZ          tap4
	VMOVUPD      Y0, (DI)
	ADDQ         $32, DI
	ADDQ         $32, SI
	SUBQ         $4, CX
	JMP          loop4

done:
	VZEROUPPER
	RET

// func mulAVX2(dst *float64, n int, a, b *float64)
// dst[i] = a[i]·b[i] for i < n (a multiple of 4).
TEXT ·mulAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DX

mloop:
	CMPQ    CX, $4
	JL      mdone
	VMOVUPD (SI), Y0
	VMULPD  (DX), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	SUBQ    $4, CX
	JMP     mloop

mdone:
	VZEROUPPER
	RET

// func ssimMapAVX2(q *float64, n int, v, amu, bmu, asq, bsq, ava, bva *float64, c1, c2 float64)
// q[i] = (2ab + c1)(2(v − ab) + c2) / ((asq + bsq + c1)(ava + bva + c2)), ab = amu·bmu, for i < n (a
// multiple of 4).
TEXT ·ssimMapAVX2(SB), NOSPLIT, $0-88
	MOVQ         q+0(FP), DI
	MOVQ         n+8(FP), CX
	MOVQ         v+16(FP), SI
	MOVQ         amu+24(FP), R8
	MOVQ         bmu+32(FP), R9
	MOVQ         asq+40(FP), R10
	MOVQ         bsq+48(FP), R11
	MOVQ         ava+56(FP), R12
	MOVQ         bva+64(FP), R13
	VBROADCASTSD c1+72(FP), Y14
	VBROADCASTSD c2+80(FP), Y15
	XORQ         AX, AX

sloop:
	CMPQ    CX, $4
	JL      sdone
	VMOVUPD (R8)(AX*8), Y0
	VMULPD  (R9)(AX*8), Y0, Y0  // ab
	VMOVUPD (SI)(AX*8), Y2
	VSUBPD  Y0, Y2, Y2          // v − ab
	VADDPD  Y0, Y0, Y0          // 2ab
	VADDPD  Y14, Y0, Y0         // 2ab + c1
	VADDPD  Y2, Y2, Y2          // 2(v − ab)
	VADDPD  Y15, Y2, Y2         // 2(v − ab) + c2
	VMULPD  Y2, Y0, Y0          // numerator
	VMOVUPD (R10)(AX*8), Y3
	VADDPD  (R11)(AX*8), Y3, Y3 // asq + bsq
	VADDPD  Y14, Y3, Y3         // + c1
	VMOVUPD (R12)(AX*8), Y4
	VADDPD  (R13)(AX*8), Y4, Y4 // ava + bva
	VADDPD  Y15, Y4, Y4         // + c2
	VMULPD  Y4, Y3, Y3          // denominator
	VDIVPD  Y3, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	SUBQ    $4, CX
	JMP     sloop

sdone:
	VZEROUPPER
	RET

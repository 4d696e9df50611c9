# shellcheck shell=bash
# The Go settings every build of eccco-go uses, sourced by the project's scripts (reproduce.sh, .ci/, bench/,
# notebooks/, docker/, scripts/). Sourcing it twice changes nothing.
#
# GOTOOLCHAIN: go.mod needs Go 1.27.3 (gomlx v0.28.16). Where the installed Go is older, the go command fetches
# go1.27.3 from the Go module proxy (golang.org/toolchain, about 76 MB, once per machine); Go installations that
# set GOTOOLCHAIN=local (Debian's machines here, the golang Docker images) would refuse it instead. A Go that is
# new enough is used as it is.
# GOEXPERIMENT=simd: the pure-Go backend's SIMD kernels (AVX-512/AVX2 matrix products, fused dense layers,
# vectorised element-wise ops; github.com/gomlx/compute). ECCCO_SIMD=0 builds without them (the same code,
# slower; `go test ./...` passes either way).
eccco_go_need=go1.27.3
eccco_go_have="$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null || true)"
if [ "$(printf '%s\n%s\n' "$eccco_go_need" "${eccco_go_have:-go0}" | sort -V | head -n1)" != "$eccco_go_need" ]; then
  export GOTOOLCHAIN="$eccco_go_need"
fi
if [ "${ECCCO_SIMD:-1}" != 0 ]; then
  case ",${GOEXPERIMENT:-}," in
    *,simd,*) ;;
    *) export GOEXPERIMENT="${GOEXPERIMENT:+$GOEXPERIMENT,}simd" ;;
  esac
fi
# GODEBUG=asyncpreemptoff=1, with the simd experiment only: its runtime saves and restores the AVX-512
# registers around each asynchronous preemption (runtime.asyncPreempt, sent to a goroutine busy for 10 ms)
# and returns with their upper halves dirty, so the standard library's legacy-SSE assembly (math.Exp, …)
# then pays an AVX-SSE transition on every instruction until something clears them: math.Exp measured
# 1.5-2.7 µs a call instead of 12 ns on this project's Intel Xeon build machines, and
# ExampleValidOmegaRange 25-55 s instead of 0.5 s. Goroutines are still preempted at function calls;
# results are the same either way.
if [ "${ECCCO_SIMD:-1}" != 0 ]; then
  case ",${GODEBUG:-}," in
    *,asyncpreemptoff=*) ;;
    *) export GODEBUG="${GODEBUG:+$GODEBUG,}asyncpreemptoff=1" ;;
  esac
fi
unset eccco_go_need eccco_go_have

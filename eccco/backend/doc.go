// Package backend chooses the GoMLX compute backend that every eccco graph runs on.
//
// The pure-Go backend ("go", from github.com/gomlx/compute/gobackend) is always compiled in and is the
// default: it needs no cgo, no plugin and no network. Users pick another configuration with the
// GOMLX_BACKEND environment variable, exactly as in GoMLX itself:
//
//	GOMLX_BACKEND=go:ops_sequential     # the default: pure Go, one op at a time (see Default for why)
//	GOMLX_BACKEND=go                    # pure Go, ops in parallel (can deadlock with compute v0.1.5)
//	GOMLX_BACKEND=xla:cpu               # XLA on the CPU: needs a binary built with -tags xla
//	GOMLX_BACKEND=xla:cuda              # XLA on an NVIDIA GPU: likewise, plus the CUDA PJRT plugin
//
// Asking for a backend that was not compiled in returns an error that says what was asked, what is available
// and how to enable XLA; it never panics.
//
// # XLA
//
// XLA (github.com/gomlx/go-xla v0.4.4) is compiled in only with the build tag "xla": it needs cgo and a PJRT
// plugin, a shared library that is loaded when the backend is created. Plugins are installed beforehand by
// scripts in the repository, from pinned PyPI wheels (checked by SHA-256), into the project's plugin folder
// .xla/ (gitignored):
//
//	scripts/install-xla.sh        # CPU: lammps-jax-pjrt-cpu==0.11.2 -> .xla/pjrt_c_api_cpu_plugin.so (200 MB)
//	scripts/install-xla-cuda.sh   # CUDA 12: jax-cuda12-pjrt==0.11.2 and the nvidia-*-cu12 libraries
//	                              #   -> .xla/nvidia/ (about 5 GB; needs an NVIDIA driver)
//	scripts/install-xla-cuda.sh --link-jax python3   # or link the CUDA plugin of an installed jax[cuda12|13]
//	GOMLX_BACKEND=xla:cpu go test -tags xla ./eccco/...
//	go build -tags xla -o bin/eccco ./eccco/cmd/eccco && GOMLX_BACKEND=xla:cpu bin/eccco backend
//
// A program built with -tags xla never downloads anything: go-xla's automatic install (which would fetch
// a plugin from the network into ~/.local/lib/go-xla when none is found) is switched off in this package's
// init, through go-xla's own xla.EnableAutoInstall(false). (go-xla reads GOMLX_NO_AUTO_INSTALL in its own
// init, so setting that variable from a running program does nothing; Go runs an imported package's init
// before the importer's, and all of them before main or any test.) Without a plugin, xla:cpu fails at once
// with an error that names the install script.
//
// Where the plugin is looked for, for GOMLX_BACKEND=xla:<name>[,options] (an empty name means "cpu"):
//
//  1. A name that is an absolute path (xla:/path/to/pjrt_c_api_cpu_plugin.so) is used as it is.
//  2. If PJRT_PLUGIN_LIBRARY_PATH is set (before the program starts), go-xla searches exactly there.
//  3. The project's plugin folder: $ECCCO_XLA_DIR, else the folder ".xla" in the working directory or its
//     nearest parent that has one (so tests, which run in their package's folder, find the repository's);
//     <folder>/pjrt_c_api_<name>_plugin.so, or <folder>/nvidia/pjrt_c_api_<name>_plugin.so for CUDA.
//  4. go-xla's own places: ~/.local/lib/go-xla, /usr/local/lib/go-xla, LD_LIBRARY_PATH, /etc/ld.so.conf.
//
// Options after the name are go-xla's (e.g. xla:cuda,preallocate=false; see its package doc).
//
// For the CPU plugin, eccco adds --xla_backend_optimization_level=1 to XLA_FLAGS before the plugin starts,
// unless XLA_FLAGS names a level already (XLACPUOptimizationLevel; `eccco backend` prints the flags). XLA's
// default, level 2, spent most of a tabular benchmark's XLA time in LLVM compiling its many small graphs:
// German Credit, 2 runs, 86 s against 26 s at level 1, the results identical but for 116 of 8,000 set-size
// values (≤ 2.4·10⁻⁷ apart); a Fashion-MNIST run 3.6 min against 3.9, its 3,000 counterfactuals identical in
// every column. The steady-state step of a compiled graph can be slower at level 1: the speed benchmark's
// MNIST-MLP search step (bench/gosearch, Searcher, alternately, noisy) took 5.0–6.5 µs per counterfactual and
// step at level 1 against 4.1–6.0 at level 2 (B = 100) and 5.3–6.0 against 3.1–4.4 (B = 1,000), so
// bench/run.sh times XLA at level 2. Set XLA_FLAGS=--xla_backend_optimization_level=2 to get XLA's default back.
//
// # Which backend is faster, and do they agree
//
// Measured on a 2-core AMD EPYC (AVX2) with the benchmark of the authors'-code mode (eccco bench):
//
//   - Image models: XLA CPU. MNIST's five models train in 5.4 min on XLA (63 min on pure Go); a run of 30
//     units (100 factuals, 6 generators, 5 models) takes about 2 min (MNIST's 10 runs: preparation 2.6,
//     search 3.3, SGLD sampling 10.5, metrics 3.7 min), against about 20 min on pure Go. LeNet-5's
//     convolutions, relus and poolings run there as convolutions over 2×2 pixel blocks
//     (models.ConvReluPool2), XLA's CPU convolution being slow for its one input channel; pure Go keeps
//     im2col.
//   - Tabular and synthetic models: XLA CPU too, for the whole benchmark of a data set, pure Go for a
//     single run. Their graphs are so small that XLA's compilation of every search, sampler and metric
//     graph dominates a run: moons, 2 runs of 80 units, took 2.6 min on XLA against 0.3 min on pure Go
//     when every run compiled its graphs (training: 0.6 against 1.7 min). The experiment layer now
//     compiles each model's graphs once for all its runs (models.Graphs), and the six sets' 50 runs take
//     20.8 min on XLA against 70 on pure Go (the first run of a model still pays about a second per graph),
//     13.1 min since XLA's CPU compiler runs at optimisation level 1 (below).
//
// The two agree to float32 rounding, which a 100-step search may amplify: with the same models, moons'
// 8,000 counterfactuals (2 runs) had every iteration count and convergence flag identical, 7,996 of 8,000
// unfaithfulness, implausibility and cost values within 10⁻³·max(1, |a|, |b|), and 2 validity flips, all
// four outliers ECCCo+ (eccco agree). Models trained on the two backends differ as models trained with two
// seeds do (45 of 160 moons cells more than 3 standard errors apart), so a benchmark's models should come
// from one backend; the manifest of a benchmark directory lists the backends that computed its units.
//
// # On a GPU
//
// Tried once, on an NVIDIA H100 80GB (driver 580.159.04, 16 cores; scripts/gpu-check.sh, 2026-11-26), with
// the CUDA 13 plugin of the machine's jax 0.11.2 (jax-cuda13-pjrt, PJRT 0.115, linked with --link-jax; the
// pinned CUDA 12 wheels have not run on a GPU): the tests of backend, models, energy, conformal,
// counterfactual, metrics and experiment passed on xla:cuda; one Fashion-MNIST benchmark run (30 units)
// took 1.8 min (4.65 on XLA CPU here) and its five models trained in 2.0 min (8.1 here). Against that run
// on XLA CPU with the same models, 2,688 of its 3,000 counterfactuals had the same factual (the rest differ
// in which factuals were drawn: one changed prediction shifts a draw), and of those 99.96 % of the
// unfaithfulness, 97.6 % of the implausibility and 89 % of the cost values agree within 10⁻³·max(1, |a|, |b|),
// 170 of 180 cell means too: more spread than between pure Go and XLA CPU. Part of it is TF32, in which
// the GPU runs float32 matrix products by default: for the MLP's Wachter, REVISE and ECCCo counterfactuals
// (300), the values within 10⁻³ of XLA CPU's went from 292–298 of 300 per metric to 299–300 with
//
//	NVIDIA_TF32_OVERRIDE=0 XLA_FLAGS=--xla_gpu_enable_triton_gemm=false   # full float32 products on the GPU
//
// (cuBLAS then computes in float32; XLA's own Triton matrix kernels are switched off). Per
// counterfactual-iteration the GPU is at PyTorch's level on the same card (bench/results-gpu.md).
//
// Wheels tried for the CPU plugin (go-xla v0.4.4 was built for PJRT C API 0.104 and tested with the CPU
// plugin v0.114): lammps-jax-pjrt-cpu==0.11.2 (PJRT 0.115, XLA of jaxlib 0.11.2) loads, runs eccco's tests
// and is the one pinned; fastatomstruct-xla-cpu==2026.6.23 (zml's build, PJRT 0.106) and
// xla-cpu-pjrt==0.0.1 (OpenXLA's, PJRT 0.81) load and run a small graph and its gradient; jaxlib's wheels
// export no GetPjrtApi (the CPU client is linked into its Python extension), so they are no plugin.
package backend

// Package backend chooses the GoMLX compute backend that every eccco graph runs on.
//
// The pure-Go backend ("go", from github.com/gomlx/compute/gobackend) is always compiled in and is the
// default: it needs no cgo, no plugin and no network. Users pick another configuration with the
// GOMLX_BACKEND environment variable, exactly as in GoMLX itself:
//
//	GOMLX_BACKEND=go:ops_sequential     # the default: pure Go, one op at a time (see Default for why)
//	GOMLX_BACKEND=go                    # pure Go, ops in parallel (can deadlock: see Default)
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
// a plugin from the network into ~/.local/lib/go-xla when none is found) is never registered (go-xla's
// autoinstall package is not imported) and is switched off in this package's init as well, through
// go-xla's own xla.EnableAutoInstall(false). (go-xla reads GOMLX_NO_AUTO_INSTALL in its own
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
// For the CPU plugin, eccco adds two flags to XLA_FLAGS before the plugin starts, each unless XLA_FLAGS
// names that flag already (`eccco backend` prints the flags):
//
//   - --xla_backend_optimization_level=1 (XLACPUOptimizationLevel): eccco compiles many small graphs, each
//     once, and XLA's default, level 2, spends most of their time in LLVM. Set
//     XLA_FLAGS=--xla_backend_optimization_level=2 to get XLA's default back (bench/run.sh does, to time
//     steady steps).
//   - --xla_cpu_experimental_ynn_fusion_type=individual_dot (XLACPUYNNFusionTypes): only single matrix
//     products go to YNNPACK. XLA's default also fuses the elementwise operations around them into YNNPACK,
//     which computes the L1 cost's sign one float at a time: at 10,000 rows a search step cost more per row
//     than at 1,000. An empty list (no YNNPACK) fixes that but slows the products at small batches.
//     XLA_FLAGS naming the flag overrides it (with any value; an empty one: no YNNPACK at all).
//
// # Choosing a backend, and how far they agree
//
// XLA's CPU plugin suits image models (LeNet-5's convolutions, relus and poolings run there as
// convolutions over 2×2 pixel blocks, models.ConvReluPool2, XLA's CPU convolution being slow for one input
// channel; pure Go keeps im2col) and a data set's whole benchmark, whose graphs the experiment layer
// compiles once per model (models.Graphs). Pure Go suits a single run of a tabular or synthetic model,
// whose graphs are so small that XLA's compilation dominates. The timings are in bench/results.md.
//
// ImagesConfig is that choice for the image data sets as the notebooks' full settings make it (reproduce.sh
// makes the same one in its script, which also installs the plugin and builds with -tags xla): XLA's CPU
// plugin when it is compiled in and installed, unless ECCCO_IMAGE_BACKEND or GOMLX_BACKEND says otherwise. Named keeps one backend per configuration, so that
// the image sets' backend and GOMLX_BACKEND's can serve one process side by side.
//
// The backends agree to float32 rounding, which a 100-step search may amplify (`eccco agree` compares two
// benchmark directories). Models trained on two backends differ as models trained with two seeds do, so a
// benchmark's models should come from one backend; the manifest of a benchmark directory lists the
// backends that computed its units.
//
// # On a GPU
//
// xla:cuda runs with the CUDA 13 plugin of an installed jax 0.11.2 (jax-cuda13-pjrt, PJRT 0.115, linked
// with --link-jax). By default the GPU computes float32 matrix products in TF32, which moves results
// further from XLA CPU's than pure Go's are; for full float32 products set
//
//	NVIDIA_TF32_OVERRIDE=0 XLA_FLAGS=--xla_gpu_enable_triton_gemm=false   # full float32 products on the GPU
//
// (cuBLAS then computes in float32; XLA's own Triton matrix kernels are switched off). GPU timings and
// agreement: bench/results-gpu.md.
//
// The pinned CPU plugin is lammps-jax-pjrt-cpu==0.11.2 (PJRT 0.115, the XLA of jaxlib 0.11.2; go-xla v0.4.4
// was built for PJRT C API 0.104). jaxlib's own wheels export no GetPjrtApi (the CPU client is linked into
// its Python extension), so they are no plugin.
package backend

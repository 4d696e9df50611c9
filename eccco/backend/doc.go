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
// XLA is compiled in only with the build tag "xla" (it needs cgo and a PJRT plugin). Asking for a backend
// that was not compiled in returns an error that says what was asked, what is available and how to enable
// XLA; it never panics and never starts a download (GOMLX_NO_AUTO_INSTALL is set unless the user set it).
package backend

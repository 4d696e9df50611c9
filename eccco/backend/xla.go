//go:build xla

package backend

// Built with -tags xla: register GoMLX's XLA backend ("xla:cpu", "xla:cuda", ...). It needs cgo and a PJRT
// plugin installed beforehand (scripts/install-xla.sh); GOMLX_BACKEND=xla:cpu (or xla:cuda) then selects it.

import (
	goxla "github.com/gomlx/go-xla/compute/xla"
)

// init turns go-xla's auto-install off. Since go-xla v0.4.13 the installer is registered only by a program
// that imports github.com/gomlx/go-xla/compute/xla/autoinstall, which eccco never does; the switch stays as a
// second guard (TestXLANeverDownloads registers the installer and checks it). Where an installer is
// registered and enabled, creating an XLA backend whose plugin is missing downloads one from the network
// into ~/.local/lib/go-xla. go-xla reads GOMLX_NO_AUTO_INSTALL in its own
// init, so setting that variable later (as this package once did in NewWithConfig) has no effect. Go runs
// the init functions of an imported package before those of the importer, and all of them before main or
// any test, so this call comes after go-xla's and before any backend can be created.
func init() {
	goxla.EnableAutoInstall(false)
	xlaResolve = resolveXLAConfig
}

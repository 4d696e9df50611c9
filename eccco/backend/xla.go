//go:build xla

package backend

// Built with -tags xla: register GoMLX's XLA backend ("xla:cpu", "xla:cuda", ...). It needs cgo and a PJRT
// plugin installed on the machine; GOMLX_BACKEND=xla:cpu (or xla:cuda) then selects it.
import _ "github.com/gomlx/go-xla/compute/xla"

// Package livevars marks the GoMLX graphs whose variables change, so that they read them at each call.
//
// Those are the graphs that update them (a training step) and those called again after their values
// were set anew (a search's inputs).
//
// From gomlx v0.28.13 on, a backend that prefers constants for variables (the pure-Go backend from
// compute v0.1.13) embeds each variable's value into a compiled graph as a constant unless the graph is
// marked as training (model.Store.IsTraining): such a graph keeps the values the variables had when it
// was compiled, and an update it makes is not seen by its next call. Constants are faster where the
// values never change (the backend packs a constant weight matrix once), so only the graphs whose
// variables change are marked. No eccco model has layers that behave otherwise in training (dropout,
// batch normalisation), so the mark changes nothing else.
package livevars

import (
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
)

// Mark makes g read its variables as inputs at every call instead of as the constants they were when g
// was compiled. It must be called while g is built, before any variable is read in g.
func Mark(g *graph.Graph) {
	model.SetGraphParam(g, model.ScopeSeparator+model.GraphParamIsTraining, true)
}

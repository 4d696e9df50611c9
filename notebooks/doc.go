// Package notebooks holds the GoNB notebooks that walk through the ECCCo paper (the *.ipynb files of this
// folder) and their test harness; it has no Go API. See README.md in this folder.
//
// `go test ./notebooks` always checks the committed notebooks' form (first cell, kernel, expectations,
// size); ECCCO_NOTEBOOKS=1 also executes every notebook headless with the gonb kernel and checks what it
// shows (TestNotebooks).
package notebooks

// Package notebooks holds the GoNB notebooks that walk through the ECCCo paper, and their tests.
// The notebooks are the *.ipynb files of this folder; the package has no Go API. See README.md here.
//
// `go test ./notebooks` always checks the committed notebooks' form (first cell, kernel, expectations,
// size); ECCCO_NOTEBOOKS=1 also executes every notebook headless with the gonb kernel and checks what it
// shows (TestNotebooks).
package notebooks

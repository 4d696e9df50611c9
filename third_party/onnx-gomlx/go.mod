module github.com/gomlx/onnx-gomlx

go 1.26.5

require (
	github.com/gomlx/compute v0.1.5
	github.com/gomlx/compute-onnx v0.1.4
	github.com/gomlx/exceptions v0.0.3
	github.com/gomlx/gomlx v0.28.5
	github.com/pkg/errors v0.9.1
	google.golang.org/protobuf v1.36.11
)

//go:build !unix

package outdir

import (
	"context"
	"errors"
)

// LockFile is the name of the lock file Lock holds in an output folder (unix only).
const LockFile = ".eccco.lock"

// ErrLocked is wrapped by Lock when another process holds the folder's lock.
var ErrLocked = errors.New("another eccco is writing to this folder")

// Lock is a no-op where flock is not available.
func Lock(dir string) (unlock func(), err error) { return func() {}, nil }

// LockWait is a no-op where flock is not available.
func LockWait(ctx context.Context, path string, waiting func(holder string)) (unlock func(), err error) {
	return func() {}, nil
}

//go:build !unix

package main

import (
	"errors"
	"time"
)

// cpuTime is not available here: -clock cpu needs getrusage.
func cpuTime() (time.Duration, error) {
	return 0, errors.New("-clock cpu needs a Unix system (getrusage)")
}

//go:build unix

package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockFile is the name of the lock file Lock holds in an output folder.
const LockFile = ".eccco.lock"

// ErrLocked is wrapped by Lock when another process holds the folder's lock.
var ErrLocked = errors.New("another eccco is writing to this folder")

// Lock takes the output folder's lock (an flock on dir/.eccco.lock, released when the process ends or
// unlock is called), so that two runs never write one folder at once; when another process holds it,
// the error wraps ErrLocked and names that process.
func Lock(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		raw, _ := os.ReadFile(path)
		_ = f.Close()
		who := "another process"
		if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
			who = fmt.Sprintf("process %d", pid)
		}
		return nil, fmt.Errorf("%w: %s holds %s; wait for it to finish or choose another folder", ErrLocked, who, path)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}, nil
}

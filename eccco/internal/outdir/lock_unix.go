//go:build unix

package outdir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
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
		_ = f.Close()
		return nil, fmt.Errorf("%w: %s holds %s; wait for it to finish or choose another folder", ErrLocked, holder(path), path)
	}
	return held(f), nil
}

// holder names the process whose id the lock file at path holds ("another process" when it holds none).
func holder(path string) string {
	raw, _ := os.ReadFile(path)
	if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil {
		return fmt.Sprintf("process %d", pid)
	}
	return anotherProcess
}

// anotherProcess is what holder says when the lock file holds no process id.
const anotherProcess = "another process"

// held writes this process's id into the locked file f and returns its unlock, which empties the file.
func held(f *os.File) func() {
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		_ = f.Close()
	}
}

// LockWait takes the lock of the file at path (an flock, created with its folder where missing; released
// when the process ends or unlock is called), waiting while another process, or another caller in this
// one, holds it: waiting, if not nil, is called once with the holder ("process 123") before the wait.
// It fails only when ctx ends first or the file cannot be opened.
func LockWait(ctx context.Context, path string, waiting func(holder string)) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	told := false
	for polls := 0; ; polls++ {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return held(f), nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		// The holder writes its id just after taking the lock: give it a moment before naming nobody.
		if h := holder(path); !told && waiting != nil && (h != anotherProcess || polls >= 10) {
			waiting(h)
			told = true
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

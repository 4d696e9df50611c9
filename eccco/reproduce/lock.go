package reproduce

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/eccco-go/eccco-go/eccco/data"
)

// LockFile is the lock of a run's output folder: one run per folder at a time. It holds the process
// id of the run that holds it (flock, so that a run killed outright leaves no stale lock).
const LockFile = ".reproduce.lock"

// ErrLocked is returned when another run holds the output folder's lock.
var ErrLocked = errors.New("another run is writing to this folder")

// lockedError says who holds the lock; it is ErrLocked.
type lockedError string

func (e lockedError) Error() string        { return string(e) }
func (e lockedError) Is(target error) bool { return target == ErrLocked }

// lock takes dir's lock, without waiting, and writes this process's id into it.
func lock(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		h := strings.TrimSpace(string(holder))
		if h == "" {
			h = "?"
		}
		return nil, lockedError(fmt.Sprintf("another ./reproduce.sh or eccco reproduce (process %s) is writing to %s; wait for it to finish", h, dir))
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() {
		f.Truncate(0) // the finished run's process id, no longer of use
		f.Close()     // releases the lock
	}, nil
}

// stampKey is a fingerprint of files and folder trees: the content and relative names of their files
// (lock files left out; not their times, so that the same files made by two runs give the same key).
func stampKey(paths ...string) string {
	h := sha256.New()
	for _, p := range paths {
		st, err := os.Stat(p)
		switch {
		case err != nil:
			fmt.Fprintf(h, "missing %s\n", p)
		case st.IsDir():
			var files []string
			filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && !(strings.HasPrefix(d.Name(), ".") && strings.HasSuffix(d.Name(), ".lock")) {
					rel, _ := filepath.Rel(p, path)
					files = append(files, rel)
				}
				return nil
			})
			sort.Strings(files)
			for _, f := range files {
				fmt.Fprintf(h, "%s  ./%s\n", fileSum(filepath.Join(p, f)), filepath.ToSlash(f))
			}
		default:
			fmt.Fprintf(h, "%s  %s\n", fileSum(p), p)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func fileSum(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashOf is the SHA-256 of its parts, one a line.
func hashOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		io.WriteString(h, p+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// presence lists the data sets, each "name yes|no", so that a stamp changes when a set is fetched or
// removed; missing are the names of those not present.
func presence(dir string) (list string, missing []string) {
	var b strings.Builder
	for _, name := range data.Names() {
		ok, err := data.Present(name, dir)
		if err != nil || !ok {
			missing = append(missing, name)
			fmt.Fprintf(&b, "%s no\n", name)
			continue
		}
		fmt.Fprintf(&b, "%s yes\n", name)
	}
	return b.String(), missing
}

// stampMatches reports whether the stamp file holds key, and when it was written.
func stampMatches(path, key string) (bool, time.Time) {
	raw, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(bytes.TrimSpace(raw), []byte(key)) {
		return false, time.Time{}
	}
	st, err := os.Stat(path)
	if err != nil {
		return false, time.Time{}
	}
	return true, st.ModTime()
}

func writeStamp(path, key string) error { return os.WriteFile(path, []byte(key+"\n"), 0o644) }

// cpuSeconds is the CPU time (user + system) of this process and of its finished child processes.
func cpuSeconds() float64 {
	total := 0.0
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += tv(ru.Utime) + tv(ru.Stime)
		}
	}
	return total
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

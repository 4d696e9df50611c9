package data

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap one of these (and the underlying cause, such as
// an *os.PathError or a *net.DNSError), so callers branch with errors.Is instead of matching error text:
//
//	if err := data.Fetch(ctx, name, opts); errors.Is(err, data.ErrNotAvailable) {
//		// skip the set on this machine
//	}
var (
	// ErrUnknownDataset: the name is not one of Names() (Lookup, Load, Present, Fetch).
	ErrUnknownDataset = errors.New("unknown data set")

	// ErrNotAvailable: the data set's files are not in the data directory (Load), or every source Fetch
	// tried failed (the error lists each source with its reason and says what to do next). It is not
	// returned for local faults (ErrLocalWrite) or cancellation (context.Canceled).
	ErrNotAvailable = errors.New("data set not available")

	// ErrChecksum: a file failed verification against what is pinned for it (size or sha256; for UCI's
	// German Credit download, which has no published checksum, its expected row and class counts). A
	// Fetch error wraps it when any source was rejected for that reason.
	ErrChecksum = errors.New("checksum mismatch")

	// ErrLocalWrite: Fetch could not create or write the data directory (read-only file system, disk
	// full, permission denied, a path component that is a regular file). It is a fault of this machine,
	// not of the network or the sources; the error names the path and wraps the operating system's error
	// (so errors.Is(err, syscall.ENOSPC) and the like work too). Fetch stops at the first such fault.
	ErrLocalWrite = errors.New("local write fault")

	// ErrInvalidOption: an option or argument is out of range (a negative size or count, a too-small
	// sample, a nil random source, a From mirror that is not a directory).
	ErrInvalidOption = errors.New("invalid option")
)

// marked is an error that also matches a sentinel under errors.Is without changing its message.
type marked struct {
	err  error
	kind error
}

func (e *marked) Error() string   { return e.err.Error() }
func (e *marked) Unwrap() []error { return []error{e.kind, e.err} }

// markf formats an error as fmt.Errorf does (%w included) and makes it match the sentinel kind.
func markf(kind error, format string, args ...any) error {
	return &marked{err: fmt.Errorf(format, args...), kind: kind}
}

// localWriteError is a local fault while writing path (see ErrLocalWrite).
type localWriteError struct {
	path string
	err  error
}

func (e *localWriteError) Error() string {
	return fmt.Sprintf("local problem writing %s: %v (a fault of this machine's file system, not of the data source: "+
		"check that the path is a writable directory with free space, or choose another data directory: $%s)",
		e.path, e.err, EnvDataDir)
}

func (e *localWriteError) Unwrap() []error { return []error{ErrLocalWrite, e.err} }

// localWrite classifies err, met while creating or writing path, as a local fault. Errors already
// classified are returned unchanged; nil stays nil.
func localWrite(path string, err error) error {
	if err == nil || errors.Is(err, ErrLocalWrite) {
		return err
	}
	return &localWriteError{path: path, err: err}
}

// faultWriter passes writes to w and classifies their errors as local faults writing path, so that a
// copy from the network into a local file can tell a failed read (network) from a failed write (disk).
type faultWriter struct {
	w    interface{ Write([]byte) (int, error) }
	path string
}

func (fw faultWriter) Write(p []byte) (int, error) {
	n, err := fw.w.Write(p)
	return n, localWrite(fw.path, err)
}

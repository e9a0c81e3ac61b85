package filestore

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffsetHigh is the high 32 bits of where the lock's byte lies (2^62):
// past the end of the file, as Windows byte-range locks are mandatory.
const lockOffsetHigh = 1 << 30

// flock opens (creating) the file at path and takes an exclusive
// LockFileEx lock on it, waiting for other processes (the Windows
// counterpart of flock(2) with LOCK_EX).
func flock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ol); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil // closing the handle releases the lock
}

// syncFile flushes the file at path to disk (FlushFileBuffers, which needs
// a handle with write access). A directory is not synced: Windows cannot
// open one for writing through os.Open, and NTFS journals its names itself
// (SQLite's Windows VFS does not sync directories either).
func syncFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// tryFlock takes the exclusive LockFileEx lock on f without waiting: false
// when another handle holds it.
func tryFlock(f *os.File) (bool, error) {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return true, nil
	case err == windows.ERROR_LOCK_VIOLATION || err == windows.ERROR_IO_PENDING:
		return false, nil
	}
	return false, err
}

// removeLockFiles: Windows cannot remove a file another handle has open,
// so lease lock files stay (leases.go).
const removeLockFiles = false

package host

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockOffsetHigh is the high 32 bits of where the state lock's byte lies
// (2^62): far past the end of the
// LOCK file, because Windows byte-range locks are mandatory and a lock on
// the pid the file holds would stop LockState of another process reading
// it for its message. Windows allows locking bytes past the end of a file.
const lockOffsetHigh = 1 << 30

// tryLockFile takes an exclusive LockFileEx lock on f without waiting
// (the Windows counterpart of flock(LOCK_EX|LOCK_NB); it is released when
// the handle closes, also when the process dies).
func tryLockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}

// unlockFile releases tryLockFile's lock.
func unlockFile(f *os.File) error {
	ol := windows.Overlapped{OffsetHigh: lockOffsetHigh}
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

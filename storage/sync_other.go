//go:build !linux

package storage

import (
	"errors"
	"fmt"
)

// SyncFSSupported reports whether SyncFS can flush a filesystem on this
// OS. Only Linux has syncfs(2); elsewhere callers fsync each file
// (DB.Sync), which on macOS is an F_FULLFSYNC (Go's os.File.Sync) and on
// Windows a FlushFileBuffers.
const SyncFSSupported = false

// ErrNoSyncFS is returned by SyncFS where the OS has no syncfs(2).
var ErrNoSyncFS = errors.New("syncfs is only available on Linux; sync each database with DB.Sync")

// SyncFS would flush the whole filesystem that holds path; this OS has no
// such call (macOS's sync(2) returns before the data is written, Windows
// needs administrator rights to flush a volume), so it returns ErrNoSyncFS.
// Check SyncFSSupported first.
func SyncFS(path string) error {
	return fmt.Errorf("sync filesystem of %s: %w", path, ErrNoSyncFS)
}

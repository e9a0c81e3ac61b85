package storage

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// SyncFSSupported reports whether SyncFS can flush a filesystem on this
// OS. Only Linux has syncfs(2); elsewhere callers fsync each file.
const SyncFSSupported = true

// SyncFS flushes the whole filesystem that holds path (Linux syncfs(2)):
// one call that makes the commits of many databases durable at once.
func SyncFS(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sync filesystem: %w", err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("sync filesystem of %s: %w", path, err)
	}
	return nil
}

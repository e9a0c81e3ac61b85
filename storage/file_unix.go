//go:build unix

package storage

import (
	"os"
	"syscall"
)

// walSyncFlag is how DB.Sync opens the WAL to fsync it: read-only is
// enough for fsync(2) (on macOS Go's File.Sync is an F_FULLFSYNC, which
// also flushes the drive's cache).
const walSyncFlag = os.O_RDONLY

// syncDir fsyncs a directory, making the names created in it durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// walStat is what WALCapture needs of the WAL's fstat: Nlink (0 once
// SQLite unlinked it) and Size.
type walStat = syscall.Stat_t

// openWAL opens the -wal file to read it.
func openWAL(path string) (*os.File, error) { return os.Open(path) }

func fstat(fd int, st *walStat) error {
	for {
		err := syscall.Fstat(fd, st)
		if err != syscall.EINTR {
			return err
		}
	}
}

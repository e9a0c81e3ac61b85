package filestore

import (
	"os"

	"golang.org/x/sys/unix"
)

// datasync flushes f's data, and its metadata only as far as reading the
// data back needs it (its size; not its mtime): fdatasync(2), as SQLite
// syncs its WAL. os.File.Sync's fsync(2) also writes the inode for the
// mtime every WAL write changes, one more journal commit per round.
func datasync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}

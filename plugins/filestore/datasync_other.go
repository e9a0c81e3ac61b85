//go:build !linux

package filestore

import "os"

// datasync flushes f (fsync; F_FULLFSYNC on macOS, FlushFileBuffers on
// Windows): see datasync_linux.go.
func datasync(f *os.File) error { return f.Sync() }

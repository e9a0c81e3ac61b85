//go:build unix

package main

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// errAddrInUse is the error of listening on a port in use.
const errAddrInUse = syscall.EADDRINUSE

// openFileLimit returns the soft limit on open descriptors (RLIMIT_NOFILE).
func openFileLimit() (uint64, bool) {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 0 {
		return uint64(rl.Cur), true
	}
	return 0, false
}

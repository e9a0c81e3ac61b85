//go:build unix

package main

import "golang.org/x/sys/unix"

// openFileLimit returns the soft limit on open descriptors (RLIMIT_NOFILE).
func openFileLimit() (uint64, bool) {
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 0 {
		return uint64(rl.Cur), true
	}
	return 0, false
}

package main

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// defaultMaxResidentCells bounds resident objects from the machine's
// limits, as celld's CELLD_MAX_RESIDENT_CELLS does: a resident cell holds
// 3-4 descriptors (its database, WAL, shared memory) and about 250 KB of
// memory. CELLHOST_MAX_RESIDENT_CELLS overrides it. Half the descriptors
// (the rest serve connections) at 4 each, and at most a quarter of the
// memory at 1 MB each (room for the objects' own data).
func defaultMaxResidentCells() int {
	if v, err := strconv.Atoi(os.Getenv("CELLHOST_MAX_RESIDENT_CELLS")); err == nil && v >= 0 {
		return v
	}
	n := 10000
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur > 0 && rl.Cur < 1<<31 {
		n = min(n, int(rl.Cur)/2/4)
	}
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil && si.Totalram > 0 {
		mem := uint64(si.Totalram) * uint64(si.Unit)
		n = min(n, int(mem/4/(1<<20)))
	}
	return max(n, 64)
}

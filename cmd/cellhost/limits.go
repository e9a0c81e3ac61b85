package main

import (
	"os"
	"strconv"
)

// defaultMaxResidentCells bounds resident objects from the machine's
// memory, as celld's CELLD_MAX_RESIDENT_CELLS does. An idle resident cell
// holds no descriptor (its database closes with its instance, host/park.go)
// and little memory; an active one holds its instance. At most a quarter of
// the memory at 128 KB each. CELLHOST_MAX_RESIDENT_CELLS overrides it.
func defaultMaxResidentCells() int {
	if v, err := strconv.Atoi(os.Getenv("CELLHOST_MAX_RESIDENT_CELLS")); err == nil && v >= 0 {
		return v
	}
	n := 100000
	if mem, ok := totalMemory(); ok {
		n = min(n, int(mem/4/(128<<10)))
	}
	return max(n, 64)
}

// defaultMaxOpenDatabases bounds the cell databases open at once from the
// descriptor limit: each holds 4 (database, WAL, shared memory, the WAL
// reader's), and half the descriptors are left to connections and the
// rest. At most 4096 (about 700 MB of SQLite's memory at most); at least
// 64. CELLHOST_MAX_OPEN_DATABASES overrides it.
func defaultMaxOpenDatabases() int {
	if v, err := strconv.Atoi(os.Getenv("CELLHOST_MAX_OPEN_DATABASES")); err == nil && v > 0 {
		return v
	}
	n := 4096
	if cur, ok := openFileLimit(); ok && cur < 1<<31 {
		n = min(n, int(cur)/2/4)
	}
	return max(n, 64)
}

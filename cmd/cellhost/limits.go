package main

import (
	"os"
	"strconv"

	"github.com/cellhost/cellhost/internal/httpguard"
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

// defaultMaxConns bounds the connections a server holds at once (past it a
// new one is answered 503 and closed, internal/httpguard), so that the
// accept loop never meets a full descriptor table: half the descriptors
// are left to connections (defaultMaxOpenDatabases), three quarters of
// them to the public server, a quarter to the internal one, at most
// httpguard's 4096 and 1024. CELLHOST_MAX_CONNECTIONS overrides the
// public one.
func defaultMaxConns() (public, internal int) {
	public, internal = httpguard.Defaults.MaxConns, 1024
	if cur, ok := openFileLimit(); ok && cur < 1<<31 {
		conns := max(int(cur)/2-32, 64)
		public, internal = min(public, conns*3/4), min(internal, max(conns/4, 16))
	}
	if v, err := strconv.Atoi(os.Getenv("CELLHOST_MAX_CONNECTIONS")); err == nil && v > 0 {
		public = v
	}
	return public, internal
}

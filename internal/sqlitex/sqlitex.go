// Package sqlitex holds what the storage package and the file store both
// need from modernc.org/sqlite beyond database/sql: data source names, a
// typed API over the C-level handle of a connection (Conn, Stmt: conn.go),
// access to C memory, C function pointers to Go callbacks, and the upper
// bound of a key prefix for range scans.
//
// Every unsafe line of the project, and every call into modernc's
// transpiled C (Xsqlite3_*, libc), is in this package. They stay (rather than
// a move to zombiezen.com/go/sqlite, which runs the same modernc engine
// behind a public API) because the raw path costs less CPU per statement,
// measured 2026-12-01 with the same engine (modernc.org/sqlite v1.62.0,
// libc v1.80.1, zombiezen v1.4.2; bench/sqliteapi, thread CPU time per
// operation, median of 6): one INSERT in BEGIN/COMMIT 14.4 us raw against
// 16.1 us (+12%), one SELECT by key in BEGIN/COMMIT 3.6 us against 4.4 us
// (+21%, and an allocation). Each of them depends on a detail of
// modernc that no API promises; sqlitex_test.go checks every one against
// the real driver, so an upgrade that changes one fails there, by name,
// rather than corrupting memory in storage.
package sqlitex

import (
	"errors"
	"net/url"
	"path/filepath"
	"reflect"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// DSN returns the modernc.org/sqlite data source name of the database file
// at the absolute path: a file: URI (so any byte of the path survives) with
// the pragmas, applied in order when a connection opens.
func DSN(path string, pragmas ...string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), OmitHost: true}
	q := url.Values{}
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// PtrSize is the size of a C pointer (an out-parameter's slot).
const PtrSize = unsafe.Sizeof(uintptr(0))

// CMem returns the n bytes of C memory at p (modernc.org/libc's heap, which
// the Go collector neither moves nor frees) as a slice, not a copy.
func CMem(p uintptr, n int) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)
}

// PeekPtr reads the pointer stored in C memory at p (an out-parameter).
func PeekPtr(p uintptr) uintptr {
	return *(*uintptr)(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
}

// CFuncPointer returns the C function pointer modernc.org/libc calls for
// the top-level Go function f (the address of its static funcval): what
// the transpiled C code stores for a callback such as
// sqlite3_progress_handler's, and calls back as a Go func value of f's
// type. f must be a top-level function (no closure) of the signature the
// C side calls, e.g. func(*libc.TLS, uintptr) int32.
func CFuncPointer[T any](f T) uintptr {
	return *(*uintptr)(unsafe.Pointer(&struct{ f T }{f}))
}

// ErrNoRawHandle means a driver connection does not have the layout the
// SQLite handle is read from (it is not modernc.org/sqlite's, or that
// package changed).
var ErrNoRawHandle = errors.New("modernc.org/sqlite connection without a reachable SQLite handle")

// Handle returns the sqlite3* handle of a modernc.org/sqlite driver
// connection (the value database/sql's Conn.Raw passes) and the libc thread
// state it must be used with. modernc.org/sqlite does not export them, so
// they are read by reflection from its conn struct's db and tls fields; a
// layout that does not match is ErrNoRawHandle, never a crash. Calls on the
// handle must stay on the connection's goroutine discipline (database/sql
// hands a Conn to one user at a time).
func Handle(driverConn any) (tls *libc.TLS, db uintptr, err error) {
	v := reflect.ValueOf(driverConn)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, 0, ErrNoRawHandle
	}
	s := v.Elem()
	fdb, ftls := s.FieldByName("db"), s.FieldByName("tls")
	if !fdb.IsValid() || fdb.Kind() != reflect.Uintptr || !ftls.IsValid() ||
		ftls.Type() != reflect.TypeFor[*libc.TLS]() || ftls.IsNil() || fdb.Uint() == 0 {
		return nil, 0, ErrNoRawHandle
	}
	return (*libc.TLS)(ftls.UnsafePointer()), uintptr(fdb.Uint()), nil
}

// Program returns the bytecode of the prepared statement stmt (its Vdbe's
// aOp[0..nOp)), a view of C memory valid until the statement is prepared
// again or finalized: what EXPLAIN lists, without preparing it again.
func Program(stmt uintptr) []sqlite3.TVdbeOp {
	if stmt == 0 {
		return nil
	}
	v := (*sqlite3.TVdbe)(*(*unsafe.Pointer)(unsafe.Pointer(&stmt)))
	if v.FaOp == 0 || v.FnOp <= 0 {
		return nil
	}
	p := v.FaOp
	return unsafe.Slice((*sqlite3.TVdbeOp)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), v.FnOp)
}

// RegisterInt returns the integer last stored in register reg of the
// running (or just halted) statement stmt, and whether the register holds
// one. A halted statement's registers keep their value until it is reset,
// but not their type: after SQLITE_DONE, ok is false and n is the last
// integer the register held.
func RegisterInt(stmt uintptr, reg int32) (n int64, ok bool) {
	if stmt == 0 {
		return 0, false
	}
	v := (*sqlite3.TVdbe)(*(*unsafe.Pointer)(unsafe.Pointer(&stmt)))
	if v.FaMem == 0 || reg < 0 || reg >= v.FnMem {
		return 0, false
	}
	p := v.FaMem + uintptr(reg)*unsafe.Sizeof(sqlite3.TMem{})
	m := (*sqlite3.TMem)(*(*unsafe.Pointer)(unsafe.Pointer(&p)))
	return *(*int64)(unsafe.Pointer(&m.Fu)), m.Fflags&(sqlite3.MEM_Int|sqlite3.MEM_IntReal) != 0
}

// PrefixEnd returns the least string greater, in byte order, than every
// string starting with prefix; ok is false when there is none (prefix is
// empty or all 0xFF bytes). The result may be invalid UTF-8: SQLite compares
// TEXT with BINARY collation byte by byte, so it still bounds a range scan
// (key >= prefix AND key < end).
func PrefixEnd(prefix string) (end string, ok bool) {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

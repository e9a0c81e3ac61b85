package storage

import (
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ---------------------------------------------------------------------------
// Authorizer

// authState is what the authorizer reports about the statement being
// prepared. The authorizer runs inside SQLite calls on the DB's goroutine.
type authState struct {
	user   bool  // the statement being prepared or stepped is the application's
	err    error // the first refusal with a message of its own
	schema bool  // the statement changes the schema
	// The application's statement reads sqlite_master (schemaRead) or
	// runs PRAGMA table_list (tableList): see hideInternal.
	schemaRead, tableList bool
	// analyzed: an ANALYZE ran or was prepared (see DB.dropStat4).
	analyzed bool
	// dml is the table the statement being prepared inserts into,
	// updates or deletes from (the first one authorized), for workerd's
	// row counts (sqlrows.go).
	dml dmlTarget
}

// isReservedName reports whether name is reserved for cellhost's own
// tables (workerd reserves the _cf_ prefix, in any case).
func isReservedName(name string) bool {
	return len(name) >= 4 && strings.EqualFold(name[:4], "_cf_")
}

// workerdColumn is the name workerd's _cf_KV column has where ours has
// another: the messages about reading it name workerd's.
func workerdColumn(table, column string) string {
	if strings.EqualFold(table, "_cf_KV") {
		switch column {
		case "scope", "k":
			return "key"
		case "v":
			return "value"
		}
	}
	return column
}

// deniedFunctions are SQL functions the application may not call: they
// reveal build details or load native code.
var deniedFunctions = map[string]bool{
	"load_extension":            true,
	"sqlite_version":            true,
	"sqlite_source_id":          true,
	"sqlite_compileoption_get":  true,
	"sqlite_compileoption_used": true,
	"sqlite_offset":             true,
	"fts3_tokenizer":            true,
}

// deniedTables are eponymous virtual tables that read or write the raw
// database file.
var deniedTables = map[string]bool{
	"sqlite_dbpage": true,
	"dbstat":        true,
}

type pragmaKind int

const (
	pragmaNoArg      pragmaKind = iota + 1 // allowed without an argument only
	pragmaBoolean                          // optional boolean argument
	pragmaObjectName                       // required table or index name
	pragmaOptional                         // optional argument
)

// allowedPragmas is workerd's PRAGMA allowlist.
var allowedPragmas = map[string]pragmaKind{
	"data_version":              pragmaNoArg,
	"table_list":                pragmaNoArg,
	"case_sensitive_like":       pragmaBoolean,
	"foreign_keys":              pragmaBoolean,
	"defer_foreign_keys":        pragmaBoolean,
	"ignore_check_constraints":  pragmaBoolean,
	"legacy_alter_table":        pragmaBoolean,
	"recursive_triggers":        pragmaBoolean,
	"reverse_unordered_selects": pragmaBoolean,
	"table_info":                pragmaObjectName,
	"table_xinfo":               pragmaObjectName,
	"foreign_key_list":          pragmaObjectName,
	"index_info":                pragmaObjectName,
	"index_list":                pragmaObjectName,
	"index_xinfo":               pragmaObjectName,
	"foreign_key_check":         pragmaOptional,
	"quick_check":               pragmaOptional,
	"optimize":                  pragmaOptional,
}

// validBoolean reports whether v is one of SQLite's spellings of a boolean,
// optionally quoted.
func validBoolean(v string) bool {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// authorize is the SQLite authorizer of a cell connection. Statements of
// cellhost itself are always allowed; the application's are checked
// against workerd's rules.
func (a *authState) authorize(action sqlite.AuthorizerActionCode, arg1, arg2, dbName, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthCreateIndex, sqlite.AuthCreateTable, sqlite.AuthCreateTrigger, sqlite.AuthCreateView,
		sqlite.AuthDropIndex, sqlite.AuthDropTable, sqlite.AuthDropTrigger, sqlite.AuthDropView,
		sqlite.AuthAlterTable, sqlite.AuthCreateVTable, sqlite.AuthDropVTable:
		a.schema = true
		if a.user && a.dml.ddl == 0 {
			a.dml.ddl, a.dml.ddlName, a.dml.ddlTable = action, arg1, arg2
		}
	case sqlite.AuthAnalyze:
		a.analyzed = true
	case sqlite.AuthInsert, sqlite.AuthUpdate, sqlite.AuthDelete:
		if a.user {
			a.dml.note(action, arg1, arg2)
		}
	}
	if !a.user {
		return sqlite.AuthorizerOK
	}
	if a.allowed(action, arg1, arg2, dbName) {
		return sqlite.AuthorizerOK
	}
	return sqlite.AuthorizerDeny
}

func (a *authState) fail(err error) bool {
	if a.err == nil {
		a.err = err
	}
	return false
}

func (a *authState) allowed(action sqlite.AuthorizerActionCode, arg1, arg2, dbName string) bool {
	if action == sqlite.AuthAlterTable {
		// arg1 is the database, arg2 the table; for DROP COLUMN SQLite
		// passes the column where the database name goes.
		return strings.EqualFold(arg1, "main") && !isReservedName(arg2)
	}
	switch dbName {
	case "", "main":
	case "temp":
		switch action {
		case sqlite.AuthRead, sqlite.AuthUpdate:
			return !isReservedName(arg1)
		}
		return false
	default:
		return false
	}
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRecursive:
		return true
	case sqlite.AuthRead:
		if strings.EqualFold(arg1, "sqlite_master") {
			a.schemaRead = true
		}
		if isReservedName(arg1) {
			return a.fail(&SQLError{
				Msg:  "access to " + arg1 + "." + workerdColumn(arg1, arg2) + " is prohibited: SQLITE_AUTH",
				Code: sqlite3.SQLITE_AUTH,
			})
		}
		return !deniedTables[strings.ToLower(arg1)]
	case sqlite.AuthUpdate, sqlite.AuthInsert, sqlite.AuthDelete:
		return !isReservedName(arg1) && !deniedTables[strings.ToLower(arg1)]
	case sqlite.AuthAnalyze:
		// workerd allows ANALYZE on every table (a bare ANALYZE covers the
		// internal ones): it writes statistics, not rows.
		return true
	case sqlite.AuthCreateTable, sqlite.AuthDropTable,
		sqlite.AuthCreateView, sqlite.AuthDropView, sqlite.AuthReindex:
		return !isReservedName(arg1)
	case sqlite.AuthAlterTable:
		return !isReservedName(arg2)
	case sqlite.AuthCreateIndex, sqlite.AuthDropIndex, sqlite.AuthCreateTrigger, sqlite.AuthDropTrigger:
		return !isReservedName(arg1) && !isReservedName(arg2)
	case sqlite.AuthTransaction, sqlite.AuthSavepoint:
		return a.fail(&SQLError{Msg: msgTransactionSQL})
	case sqlite.AuthPragma:
		if strings.EqualFold(arg1, "table_list") {
			a.tableList = true
		}
		kind := allowedPragmas[strings.ToLower(arg1)]
		switch kind {
		case pragmaNoArg:
			return arg2 == ""
		case pragmaBoolean:
			return arg2 == "" || validBoolean(arg2)
		case pragmaObjectName:
			return arg2 != "" && !isReservedName(arg2)
		case pragmaOptional:
			return !isReservedName(arg2)
		}
		return false
	case sqlite.AuthFunction:
		return !deniedFunctions[strings.ToLower(arg2)]
	case sqlite.AuthCreateVTable, sqlite.AuthDropVTable:
		return !isReservedName(arg1) && (strings.EqualFold(arg2, "fts5") || strings.EqualFold(arg2, "fts5vocab"))
	}
	// ATTACH, DETACH, temporary objects, COPY and anything unknown.
	return false
}

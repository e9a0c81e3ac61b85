package node

import "strings"

// Compat is what a worker's compatibility date and flags enable of Node.js,
// as workerd decides it (src/workerd/io/compatibility-date.capnp).
type Compat struct {
	// Modules: the node:* built-in modules (nodejs_compat, nodejs_compat_v2).
	Modules bool
	// V2: nodejs_compat_v2, implied by nodejs_compat from 2024-09-23 on:
	// the globals Buffer, process, setImmediate and clearImmediate, and bare
	// built-in names ("path") resolved as "node:path".
	V2 bool
	// ALS: only node:async_hooks (nodejs_als without nodejs_compat).
	ALS bool
	// PopulateEnv: process.env holds the worker's text bindings
	// (nodejs_compat_populate_process_env, default with nodejs_compat from
	// 2025-04-01).
	PopulateEnv bool
	// Flagged: the modules workerd gives only under their own
	// enable_nodejs_<name>_module flag (flagged below), by name.
	Flagged map[string]bool
}

// flagged are the modules workerd gates behind a flag of their own
// (enable_nodejs_child_process_module, ...): without it an import is "No
// such module", as in workerd.
var flagged = map[string]string{
	"child_process":  "enable_nodejs_child_process_module",
	"worker_threads": "enable_nodejs_worker_threads_module",
	"console":        "enable_nodejs_console_module",
	"sqlite":         "enable_nodejs_sqlite_module",
}

// v2Date is the compatibility date from which nodejs_compat implies
// nodejs_compat_v2; envDate the one from which process.env is populated.
const (
	v2Date  = "2024-09-23"
	envDate = "2025-04-01"
)

// CompatFor reads a worker's compatibility date (YYYY-MM-DD) and flags.
func CompatFor(date string, flags []string) Compat {
	has := map[string]bool{}
	for _, f := range flags {
		has[strings.TrimSpace(f)] = true
	}
	var c Compat
	switch {
	case has["nodejs_compat_v2"]:
		c.Modules, c.V2 = true, true
	case has["nodejs_compat"]:
		c.Modules = true
		c.V2 = date >= v2Date && !has["no_nodejs_compat_v2"]
	}
	if c.Modules {
		c.PopulateEnv = (date >= envDate || has["nodejs_compat_populate_process_env"]) && !has["nodejs_compat_do_not_populate_process_env"]
	}
	c.ALS = c.Modules || has["nodejs_als"]
	for name, flag := range flagged {
		if c.Modules && has[flag] {
			if c.Flagged == nil {
				c.Flagged = map[string]bool{}
			}
			c.Flagged[name] = true
		}
	}
	return c
}

// Enabled reports whether name (without "node:") is importable under c.
func (c Compat) Enabled(name string) bool {
	if !Builtin(name) {
		return false
	}
	if _, gated := flagged[name]; gated {
		return c.Flagged[name]
	}
	if c.Modules {
		return true
	}
	return c.ALS && name == "async_hooks"
}

// modules are the built-in modules cellhost provides.
var modules = []string{
	"assert", "assert/strict", "async_hooks", "buffer", "cluster", "crypto", "diagnostics_channel", "dns", "dns/promises",
	"events", "fs", "fs/promises", "http", "http2", "https", "module", "net", "punycode", "tls", "vm",
	"os", "path", "path/posix", "process", "querystring", "stream", "stream/consumers", "stream/promises",
	"stream/web", "sys", "path/win32", "child_process", "worker_threads", "console", "sqlite", "_stream_duplex", "_stream_passthrough", "_stream_readable", "_stream_transform", "_stream_writable", "string_decoder", "test", "timers", "timers/promises", "url", "util", "util/types", "zlib",
}

// prefixOnly are Node's modules that exist only as "node:name": a bare
// "test" or "sqlite" is an npm package in Node, so a bare import of one is
// left to esbuild.
var prefixOnly = map[string]bool{"test": true, "sqlite": true}

// Builtin reports whether cellhost provides node:name.
func Builtin(name string) bool {
	for _, m := range modules {
		if m == name {
			return true
		}
	}
	return false
}

// nodeOnly are Node's built-in module names cellhost does not provide; a
// bare import of one under V2 names the missing module instead of looking
// in node_modules.
var nodeOnly = []string{
	"dgram", "inspector", "perf_hooks", "readline", "repl",
	"trace_events", "tty", "v8", "wasi",
}

// NodeName reports whether name is one of Node's built-in module names.
func NodeName(name string) bool {
	if prefixOnly[name] {
		return false
	}
	if Builtin(name) {
		return true
	}
	for _, m := range nodeOnly {
		if m == name {
			return true
		}
	}
	return false
}

package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
	"modernc.org/sqlite"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/web"
)

// inspectorPrefix is where `cellhost dev` serves its inspector.
const inspectorPrefix = "/_cellhost"

// inspectorPageSize is how many rows a page of a table or of the KV shows.
const inspectorPageSize = 50

// inspector is the dev inspector: the classes and their objects (from the
// state directory), each object's KV entries and SQL tables with paging,
// its alarm, and a read-only SQL console. It reads the objects' SQLite
// files read-only (WAL readers do not disturb the running host).
type inspector struct {
	stateDir string
	classes  func() []string // the bound classes, current after reloads
	hub      *logHub         // the live log; nil: none
	// live returns an object's state in memory (its WebSockets, its armed
	// alarm); nil: not shown.
	live func(class, id string) host.ObjectState
	// name names an object its database does not name (a D1 database:
	// its binding and id); nil or "": none.
	name func(class, id string) string
	// names are the objects the host constructed and the names that
	// reached them (getByName/idFromName); nil: none recorded.
	names *objectNames

	mu sync.Mutex // guards rt: one scratch runtime decodes KV values
	rt *goja.Runtime
}

// objectInfo is one object of a class.
type objectInfo struct {
	Class, ID, Name string
	Size            int64
	Alarm           string
	NoDB            bool // constructed, but it has no database (it never wrote)
}

// ServeHTTP serves the pages under /_cellhost.
func (in *inspector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.Trim(strings.TrimPrefix(r.URL.Path, inspectorPrefix), "/")
	parts := strings.Split(rest, "/")
	switch {
	case rest == "":
		in.home(w, r)
	case rest == "log" && in.hub != nil:
		in.hub.serveEvents(w, r)
	case len(parts) == 3 && parts[0] == "object":
		in.object(w, r, parts[1], parts[2])
	default:
		http.NotFound(w, r)
	}
}

// dbPath is the database of an object, ok when it exists.
func (in *inspector) dbPath(class, id string) (string, bool) {
	p, valid := in.dbPathOf(class, id)
	if !valid {
		return "", false
	}
	_, err := os.Stat(p)
	return p, err == nil
}

// dbPathOf is where an object's database would be; valid is false for a
// class or id that would leave the state directory.
func (in *inspector) dbPathOf(class, id string) (string, bool) {
	if strings.ContainsAny(class, `/\`) || strings.ContainsAny(id, `/\`) || class == ".." || id == ".." {
		return "", false
	}
	return filepath.Join(in.stateDir, "cells", class, id+".sqlite"), true
}

// objectWithoutDB is the page of an object the host constructed that has
// no database: its name and its live state.
func (in *inspector) objectWithoutDB(w http.ResponseWriter, class, id string) {
	data := map[string]any{"CSS": inspectorCSS, "Prefix": inspectorPrefix, "Class": class, "ID": id, "Name": in.recordedName(class, id), "NoDB": true}
	in.addLive(data, class, id)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = objectTmpl.Execute(w, data)
}

// openRO opens an object's database read-only (query_only) on one
// connection whose authorizer refuses ATTACH and DETACH: the SQL console
// runs what the page sends, and ATTACH would open any file of the machine
// (issue 23.8).
func openRO(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(2000)")
	if err != nil {
		return nil, err
	}
	// One connection, kept: the authorizer is installed on it once.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	c, err := db.Conn(context.Background())
	if err == nil {
		err = c.Raw(func(dc any) error {
			reg, ok := dc.(sqlite.AuthorizerRegisterer)
			if !ok {
				return errors.New("modernc.org/sqlite connection without an authorizer")
			}
			return reg.RegisterAuthorizer(inspectorAuthorizer)
		})
		c.Close()
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// inspectorAuthorizer refuses ATTACH, DETACH and a PRAGMA that sets a
// value (PRAGMA query_only = 0 would lift the read-only guard); writes to
// the database fail as it is opened read-only.
func inspectorAuthorizer(action sqlite.AuthorizerActionCode, _, value, _, _ string) sqlite.AuthorizerReturnCode {
	switch {
	case action == sqlite.AuthAttach, action == sqlite.AuthDetach, action == sqlite.AuthPragma && value != "":
		return sqlite.AuthorizerDeny
	}
	return sqlite.AuthorizerOK
}

// inspectorAllowed reports whether r may reach the inspector: not from a
// script's fetch() (jsapi/web.IsSubrequest), addressed by a loopback name
// or address (or the --inspector-host one), and, from a page, from that
// same origin. A DNS-rebinding page (Host: attacker.example resolving to
// 127.0.0.1) and any other site's page are refused (issue 23.8).
func inspectorAllowed(r *http.Request, extraHost string) (bool, string) {
	if web.IsSubrequest(r.RemoteAddr) {
		return false, "a script cannot reach the inspector"
	}
	hostname := func(hostport string) string {
		if h, _, err := net.SplitHostPort(hostport); err == nil {
			return h
		}
		return strings.Trim(hostport, "[]")
	}
	allowedName := func(h string) bool {
		h = strings.ToLower(strings.TrimSuffix(h, "."))
		if h == "localhost" || strings.HasSuffix(h, ".localhost") || (extraHost != "" && h == strings.ToLower(extraHost)) {
			return true
		}
		ip := net.ParseIP(h)
		return ip != nil && ip.IsLoopback()
	}
	if !allowedName(hostname(r.Host)) {
		return false, "the inspector answers only on a loopback address (localhost, 127.0.0.1, [::1]); pass --inspector-host " + hostname(r.Host) + " to allow this name"
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || !strings.EqualFold(u.Host, r.Host) || (u.Scheme != "http" && u.Scheme != "https") {
			return false, "the inspector answers only pages of its own origin"
		}
	}
	return true, ""
}

// objects lists the objects of class: those with a database, and those
// the host constructed (recorded in names) that have none.
func (in *inspector) objects(class string) []objectInfo {
	files, _ := filepath.Glob(filepath.Join(in.stateDir, "cells", class, "*.sqlite"))
	var out []objectInfo
	seen := map[string]bool{}
	for _, f := range files {
		o := objectInfo{Class: class, ID: strings.TrimSuffix(filepath.Base(f), ".sqlite")}
		seen[o.ID] = true
		if st, err := os.Stat(f); err == nil {
			o.Size = st.Size()
		}
		if db, err := openRO(f); err == nil {
			var name sql.NullString
			_ = db.QueryRow(`SELECT actor_name FROM _cf_METADATA LIMIT 1`).Scan(&name)
			o.Name = name.String
			if o.Name == "" {
				o.Name = in.recordedName(class, o.ID)
			}
			var at sql.NullInt64
			var retry sql.NullInt64
			if db.QueryRow(`SELECT at_ms, retry FROM _cf_ALARM LIMIT 1`).Scan(&at, &retry) == nil && at.Valid {
				o.Alarm = time.UnixMilli(at.Int64).UTC().Format(time.RFC3339)
				if retry.Int64 > 0 {
					o.Alarm += fmt.Sprintf(" (retry %d)", retry.Int64)
				}
			}
			db.Close()
		}
		out = append(out, o)
	}
	if in.names != nil {
		for _, id := range in.names.ids(class) {
			if !seen[id] {
				out = append(out, objectInfo{Class: class, ID: id, Name: in.recordedName(class, id), NoDB: true})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name+out[i].ID < out[j].Name+out[j].ID })
	return out
}

// recordedName names an object its database does not: the name that
// reached it (names), or what in.name says (a D1 database).
func (in *inspector) recordedName(class, id string) string {
	if in.names != nil {
		if n := in.names.name(class, id); n != "" {
			return n
		}
	}
	if in.name != nil {
		return in.name(class, id)
	}
	return ""
}

var inspectorCSS = template.CSS(`body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left;font-size:.9em;vertical-align:top}
th{background:#f3f3f3}code,td{font-family:ui-monospace,monospace}a{color:#0b57d0}nav a{margin-right:1em}
textarea{width:100%;font-family:ui-monospace,monospace}.err{color:#b00020}
pre.log{background:#111;color:#ddd;padding:.6em;max-height:24em;overflow:auto;font-size:.85em}pre.log .err{color:#ff7b7b}`)

var homeTmpl = template.Must(template.New("home").Parse(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>cellhost inspector</title><style>{{.CSS}}</style></head><body>
<h1>cellhost inspector</h1>
{{range .Classes}}<section class="class" data-class="{{.Name}}"><h2>{{.Name}}</h2>
{{if .Objects}}<table><tr><th>object</th><th>name</th><th>database</th><th>alarm</th></tr>
{{range .Objects}}<tr class="object"><td><a href="{{$.Prefix}}/object/{{.Class}}/{{.ID}}">{{printf "%.16s" .ID}}…</a></td><td class="name">{{.Name}}</td><td class="db">{{if .NoDB}}none (never wrote){{else}}{{.Size}} bytes{{end}}</td><td>{{.Alarm}}</td></tr>
{{end}}</table>{{else}}<p>No object of this class has run yet.</p>{{end}}</section>
{{end}}{{if .LiveLog}}<div id="live"><h2>Live log</h2><pre id="live-log" class="log"></pre></div>
<script>(function () {
  const pre = document.getElementById("live-log");
  const es = new EventSource({{.Prefix}} + "/log");
  es.onmessage = (e) => {
    const line = document.createElement("div");
    line.className = "line" + (/\b(error|Uncaught)\b/i.test(e.data) ? " err" : "");
    line.textContent = e.data;
    pre.appendChild(line);
    while (pre.childElementCount > 500) pre.firstElementChild.remove();
    pre.scrollTop = pre.scrollHeight;
  };
})();</script>{{end}}</body></html>`))

func (in *inspector) home(w http.ResponseWriter, r *http.Request) {
	type class struct {
		Name    string
		Objects []objectInfo
	}
	var cs []class
	for _, c := range in.classes() {
		cs = append(cs, class{Name: c, Objects: in.objects(c)})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = homeTmpl.Execute(w, map[string]any{"CSS": inspectorCSS, "Classes": cs, "Prefix": inspectorPrefix, "LiveLog": in.hub != nil})
}

// grid is a page of rows to show.
type grid struct {
	Columns []string
	Rows    [][]string
	Page    int
	More    bool
	Err     string
}

var objectTmpl = template.Must(template.New("object").Parse(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>{{.Class}} {{printf "%.8s" .ID}} · cellhost inspector</title><style>{{.CSS}}</style></head><body>
<nav><a href="{{.Prefix}}">all classes</a></nav>
<h1>{{.Class}} <code>{{printf "%.16s" .ID}}…</code></h1>
{{if .Name}}<p>name: <code>{{.Name}}</code></p>{{end}}
<h2 id="alarm">Alarm</h2><p class="alarm">{{if .Alarm}}stored: {{.Alarm}}{{else}}none stored{{end}}{{if .Live}}{{if .Live.AlarmRunning}}; alarm() is running{{else if .LiveAlarm}}; timer armed for {{.LiveAlarm}}{{end}}{{end}}</p>
{{if .Live}}<h2 id="websockets">WebSockets</h2>{{if .Live.Resident}}{{if .Sockets}}<table class="websockets"><tr><th>#</th><th>accepted</th><th>state</th><th>tags</th><th>attachment</th></tr>
{{range $i, $ws := .Sockets}}<tr class="websocket"><td>{{$i}}</td><td>{{$ws.Kind}}</td><td class="state">{{$ws.State}}</td><td class="tags">{{range $ws.Tags}}<code>{{.}}</code> {{end}}</td><td class="attachment">{{$ws.Attachment}}</td></tr>
{{end}}</table>{{else}}<p class="websockets">No WebSocket is attached.</p>{{end}}{{else}}<p class="websockets">Not in memory: no WebSocket is attached.</p>{{end}}{{end}}
{{if .NoDB}}<p class="nodb">No database: this object never wrote.</p>{{else}}<h2>Tables</h2><ul class="tables">{{range .Tables}}<li><a href="?table={{.Name}}">{{.Name}}</a> ({{.Rows}} rows)</li>{{end}}</ul>
<h2 id="kv">KV entries</h2>{{template "grid" .KV}}{{if .KV.More}}<a class="next" href="?kvpage={{.KVNext}}#kv">next page</a>{{end}}
{{if .Table}}<h2 id="table">Table {{.Table}}</h2>{{template "grid" .TableRows}}{{if .TableRows.More}}<a class="next" href="?table={{.Table}}&page={{.TableNext}}#table">next page</a>{{end}}{{end}}
<h2 id="sql">SQL (read-only)</h2><form method="post" action="#sql"><textarea name="q" rows="3">{{.Query}}</textarea><button>Run</button></form>
{{if .Query}}{{template "grid" .Result}}{{end}}{{end}}
</body></html>
{{define "grid"}}{{if .Err}}<p class="err">{{.Err}}</p>{{else}}<table class="grid"><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}{{end}}`))

func (in *inspector) object(w http.ResponseWriter, r *http.Request, class, id string) {
	path, ok := in.dbPath(class, id)
	if !ok {
		if _, valid := in.dbPathOf(class, id); valid && in.names != nil && in.names.has(class, id) {
			in.objectWithoutDB(w, class, id)
			return
		}
		http.NotFound(w, r)
		return
	}
	db, err := openRO(path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	info := objectInfo{Class: class, ID: id}
	for _, o := range in.objects(class) {
		if o.ID == id {
			info = o
		}
	}
	type table struct {
		Name string
		Rows int64
	}
	var tables []table
	if rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name`); err == nil {
		var names []string
		for rows.Next() {
			var n string
			if rows.Scan(&n) == nil {
				names = append(names, n)
			}
		}
		rows.Close()
		for _, n := range names {
			var c int64
			_ = db.QueryRowContext(ctx, `SELECT count(*) FROM "`+strings.ReplaceAll(n, `"`, `""`)+`"`).Scan(&c)
			tables = append(tables, table{n, c})
		}
	}
	kvPage, _ := strconv.Atoi(r.URL.Query().Get("kvpage"))
	kv := in.page(ctx, db, `SELECT k AS key, v AS value FROM _cf_KV ORDER BY k`, kvPage, true)
	if strings.Contains(kv.Err, "no such table") {
		kv = grid{Columns: []string{"key", "value"}}
	}
	data := map[string]any{"CSS": inspectorCSS, "Prefix": inspectorPrefix, "Class": class, "ID": id, "Name": info.Name, "Alarm": info.Alarm,
		"Tables": tables, "KV": kv, "KVNext": kvPage + 1}
	in.addLive(data, class, id)
	if t := r.URL.Query().Get("table"); t != "" {
		found := false
		for _, x := range tables {
			found = found || x.Name == t
		}
		if found {
			p, _ := strconv.Atoi(r.URL.Query().Get("page"))
			data["Table"] = t
			data["TableRows"] = in.page(ctx, db, `SELECT * FROM "`+strings.ReplaceAll(t, `"`, `""`)+`"`, p, false)
			data["TableNext"] = p + 1
		}
	}
	if r.Method == http.MethodPost {
		q := r.FormValue("q")
		data["Query"] = q
		data["Result"] = in.page(ctx, db, q, 0, false)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = objectTmpl.Execute(w, data)
}

// addLive adds an object's state in memory (its WebSockets, its armed
// alarm) to a page's data.
func (in *inspector) addLive(data map[string]any, class, id string) {
	if in.live != nil {
		st := in.live(class, id)
		data["Live"] = &st
		if st.AlarmDueMs != 0 {
			data["LiveAlarm"] = time.UnixMilli(st.AlarmDueMs).UTC().Format(time.RFC3339)
		}
		type socketRow struct {
			Kind, State, Attachment string
			Tags                    []string
		}
		var rows []socketRow
		for _, ws := range st.WebSockets {
			r := socketRow{Kind: "ws.accept()", State: [...]string{"CONNECTING", "OPEN", "CLOSING", "CLOSED"}[ws.ReadyState&3], Tags: ws.Tags, Attachment: "none"}
			if ws.Hibernatable {
				r.Kind = "acceptWebSocket (hibernatable)"
			}
			if ws.Attachment != nil {
				r.Attachment = in.decodeValue(ws.Attachment)
			}
			rows = append(rows, r)
		}
		data["Sockets"] = rows
	}
}

// page runs q (read-only) and returns rows page*size... of it; decode
// shows the "value" column as the JS value the KV holds.
func (in *inspector) page(ctx context.Context, db *sql.DB, q string, page int, decode bool) grid {
	if page < 0 {
		page = 0
	}
	g := grid{Page: page}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		g.Err = err.Error()
		return g
	}
	defer rows.Close()
	g.Columns, _ = rows.Columns()
	skip := page * inspectorPageSize
	for n := 0; rows.Next(); n++ {
		if n < skip {
			continue
		}
		if len(g.Rows) == inspectorPageSize {
			g.More = true
			break
		}
		vals := make([]any, len(g.Columns))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			g.Err = err.Error()
			return g
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			if decode && g.Columns[i] == "value" {
				row[i] = in.decodeValue(v)
				continue
			}
			row[i] = cellText(v)
		}
		g.Rows = append(g.Rows, row)
	}
	if err := rows.Err(); err != nil {
		g.Err = err.Error()
	}
	return g
}

func cellText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		if len(x) > 64 {
			return fmt.Sprintf("x'%x…' (%d bytes)", x[:64], len(x))
		}
		return fmt.Sprintf("x'%x'", x)
	default:
		return fmt.Sprint(x)
	}
}

// decodeValue shows a KV value (V8 serialization bytes) as JSON where it
// can, else as bytes.
func (in *inspector) decodeValue(v any) string {
	var b []byte
	switch x := v.(type) {
	case []byte:
		b = x
	case string:
		b = []byte(x)
	default:
		return cellText(v)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.rt == nil {
		rt := goja.New()
		if err := jsapi.InstallWeb(rt, jsapi.WebOptions{}); err != nil {
			return cellText(b)
		}
		in.rt = rt
	}
	val, err := clone.Deserialize(in.rt, b)
	if err != nil {
		return cellText(b)
	}
	stringify, _ := goja.AssertFunction(in.rt.Get("JSON").ToObject(in.rt).Get("stringify"))
	s, err := stringify(goja.Undefined(), val)
	if err != nil || goja.IsUndefined(s) {
		return val.String()
	}
	text := s.String()
	if len(text) > 500 {
		text = text[:500] + "…"
	}
	return text
}

// inspectorLink is the inspector's address for the start-up banner.
func inspectorLink(addr string) string {
	return (&url.URL{Scheme: "http", Host: addr, Path: inspectorPrefix}).String()
}

// inspectObject is the inspector's view of an object in the current Host.
func (d *devServer) inspectObject(class, id string) host.ObjectState {
	d.mu.Lock()
	h := d.h
	d.mu.Unlock()
	if h == nil {
		return host.ObjectState{}
	}
	return h.InspectObject(class, id)
}

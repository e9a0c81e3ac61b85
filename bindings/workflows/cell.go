package workflows

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/storage"
)

// leaseFor is how long a run may hold an instance before its alarm, if
// the process died (a kill -9), starts the next run (on whichever node
// then owns the cell). While the process lives its run holds the instance
// (leases), however long a step takes.
var leaseFor = 10 * time.Second

var (
	leasesMu sync.Mutex
	leases   = map[string]string{} // instance key -> the token of its run in this process
)

func ensureSchema(db *storage.DB) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS _cellhost_wf (k TEXT PRIMARY KEY, v)`,
		`CREATE TABLE IF NOT EXISTS _cellhost_wf_steps (key TEXT PRIMARY KEY, value BLOB, err TEXT, until INTEGER, wait TEXT, done INTEGER NOT NULL DEFAULT 0)`,
		`CREATE TABLE IF NOT EXISTS _cellhost_wf_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, payload BLOB, ts INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0)`,
		`CREATE TABLE IF NOT EXISTS _cellhost_wf_mock (k TEXT PRIMARY KEY, v BLOB)`,
	} {
		if _, err := db.ExecAll(q); err != nil {
			return err
		}
	}
	return nil
}

func getMeta(db *storage.DB) (map[string]any, error) {
	rows, err := db.ExecAll(`SELECT k, v FROM _cellhost_wf`)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	for _, r := range rows {
		m[r[0].(string)] = r[1]
	}
	return m, nil
}

func setMeta(db *storage.DB, k string, v any) error {
	_, err := db.ExecAll(`INSERT INTO _cellhost_wf (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, k, v)
	return err
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func errJSON(e *ErrInfo) string { b, _ := json.Marshal(e); return string(b) }

func errOf(s string) *ErrInfo {
	if s == "" {
		return nil
	}
	var e ErrInfo
	_ = json.Unmarshal([]byte(s), &e)
	return &e
}

// serve answers one request in a turn of the instance's cell.
func serve(db *storage.DB, b []byte) ([]byte, bool) {
	a, wrote := answer(db, b)
	if wrote && a.Fail == "" {
		if a.retry {
			_ = db.SetAlarm(time.Now().Add(2 * time.Second).UnixMilli()) // no spinning on a run that cannot start
		} else if err := schedule(db, time.Now()); err != nil {
			a = Answer{Fail: err.Error()}
		}
	}
	out, _ := json.Marshal(a)
	return out, wrote
}

func answer(db *storage.DB, b []byte) (Answer, bool) {
	fail := func(err error) (Answer, bool) { return Answer{Fail: err.Error()}, true }
	r, err := DecodeRequest(b)
	if err != nil {
		return Answer{Fail: err.Error()}, false
	}
	if err := ensureSchema(db); err != nil {
		return fail(err)
	}
	m, err := getMeta(db)
	if err != nil {
		return fail(err)
	}
	now := time.Now().UnixMilli()
	status := str(m, "status")
	if r.Op == "create" {
		if status != "" {
			return Answer{Fail: fmt.Sprintf("WorkflowError: (instance.already_exists) Workflow instance with id %q already exists", r.ID)}, false
		}
		for k, v := range map[string]any{"workflow": r.Workflow, "class": r.Class, "id": r.ID, "params": r.Params, "created": now, "status": "queued"} {
			if err := setMeta(db, k, v); err != nil {
				return fail(err)
			}
		}
		return Answer{Status: "queued"}, true
	}
	switch r.Op {
	case "mock":
		return mock(db, r, status, m)
	case "inspect":
		return inspect(db, r, status, m)
	case "dispose":
		return dispose(db, m)
	}
	if status == "" {
		if r.Lease != "" { // the instance was disposed of under its run
			return Answer{Stop: true}, false
		}
		return Answer{Fail: "instance.not_found"}, false
	}
	key := str(m, "workflow") + "/" + str(m, "id")
	leasesMu.Lock()
	held := leases[key]
	leasesMu.Unlock()
	setStatus := func(s string) error { status = s; return setMeta(db, "status", s) }
	release := func() {
		leasesMu.Lock()
		if leases[key] == r.Lease {
			delete(leases, key)
		}
		leasesMu.Unlock()
	}
	switch r.Op {
	case "status":
		a := Answer{Status: status, Error: errOf(str(m, "error"))}
		a.Output, _ = m["output"].([]byte)
		return a, false
	case "pause":
		if status == "queued" || status == "running" || status == "waiting" {
			if err := setStatus("paused"); err != nil {
				return fail(err)
			}
		}
		return Answer{Status: status}, true
	case "resume":
		if status == "paused" {
			if err := setStatus("queued"); err != nil {
				return fail(err)
			}
			return Answer{Status: status}, true
		}
		return Answer{Status: status}, false
	case "terminate":
		if status == "complete" || status == "errored" || status == "terminated" {
			return Answer{Fail: fmt.Sprintf("instance.not_running: the instance is %s", status)}, false
		}
		if err := setStatus("terminated"); err != nil {
			return fail(err)
		}
		return Answer{Status: status}, true
	case "restart":
		for _, q := range []string{`DELETE FROM _cellhost_wf_steps`, `DELETE FROM _cellhost_wf_events`, `DELETE FROM _cellhost_wf WHERE k IN ('output', 'error')`} {
			if _, err := db.ExecAll(q); err != nil {
				return fail(err)
			}
		}
		leasesMu.Lock()
		delete(leases, key) // the running run, if any, is superseded
		leasesMu.Unlock()
		if err := setStatus("queued"); err != nil {
			return fail(err)
		}
		return Answer{Status: status}, true
	case "event":
		if _, err := db.ExecAll(`INSERT INTO _cellhost_wf_events (type, payload, ts) VALUES (?, ?, ?)`, r.Type, r.Payload, now); err != nil {
			return fail(err)
		}
		if status == "waiting" && str(m, "wait") == r.Type {
			if err := setStatus("queued"); err != nil {
				return fail(err)
			}
		}
		return Answer{Status: status}, true
	}
	// A run's requests: a superseded run (restart) or one of a paused or
	// terminated instance stops.
	if held == "" || held != r.Lease {
		return Answer{Stop: true}, false
	}
	switch r.Op {
	case "step":
		var errText any
		if r.Error != nil {
			errText = errJSON(r.Error)
		}
		if _, err := db.ExecAll(`INSERT INTO _cellhost_wf_steps (key, value, err, done) VALUES (?, ?, ?, 1) ON CONFLICT (key) DO UPDATE SET value = excluded.value, err = excluded.err, done = 1`, r.Key, r.Value, errText); err != nil {
			return fail(err)
		}
		if r.Consume > 0 {
			if _, err := db.ExecAll(`UPDATE _cellhost_wf_events SET used = 1 WHERE seq = ?`, r.Consume); err != nil {
				return fail(err)
			}
		}
		if status != "running" {
			release()
			return Answer{Stop: true}, true
		}
		return Answer{}, true
	case "suspend":
		if _, err := db.ExecAll(`INSERT INTO _cellhost_wf_steps (key, until, wait) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET until = excluded.until, wait = excluded.wait`, r.Key, r.Until, r.Wait); err != nil {
			return fail(err)
		}
		release()
		if status == "running" {
			if err := setStatus("waiting"); err != nil {
				return fail(err)
			}
			if err := setMeta(db, "wait", r.Wait); err != nil {
				return fail(err)
			}
			if err := setMeta(db, "until", r.Until); err != nil {
				return fail(err)
			}
			if r.Wait != "" {
				if rows, _ := db.ExecAll(`SELECT 1 FROM _cellhost_wf_events WHERE type = ? AND used = 0`, r.Wait); len(rows) > 0 {
					if err := setStatus("queued"); err != nil { // the event came meanwhile
						return fail(err)
					}
				}
			}
		}
		return Answer{Stop: true}, true
	case "finish":
		release()
		if status != "running" {
			return Answer{Stop: true}, false
		}
		if r.Error != nil {
			if err := setMeta(db, "error", errJSON(r.Error)); err != nil {
				return fail(err)
			}
			return Answer{}, setStatus("errored") == nil
		}
		if err := setMeta(db, "output", r.Output); err != nil {
			return fail(err)
		}
		return Answer{}, setStatus("complete") == nil
	case "ended":
		// The run settled without a finish or a suspend reaching the
		// cell (its script failed to start): try again shortly.
		leasesMu.Lock()
		mine := leases[key] == r.Lease
		leasesMu.Unlock()
		if !mine {
			return Answer{}, false
		}
		release()
		return Answer{retry: true}, true
	}
	return Answer{Fail: "unknown op " + r.Op}, false
}

// schedule arms the instance's alarm for its status. Every write of the
// cell ends with it (serve's callers commit after it; here from the
// answer's turn).
func schedule(db *storage.DB, now time.Time) error {
	m, err := getMeta(db)
	if err != nil {
		return err
	}
	key := str(m, "workflow") + "/" + str(m, "id")
	leasesMu.Lock()
	_, busy := leases[key]
	leasesMu.Unlock()
	switch st := str(m, "status"); {
	case busy:
		return db.SetAlarm(now.Add(leaseFor).UnixMilli())
	case st == "queued" || st == "running":
		return db.SetAlarm(now.UnixMilli())
	case st == "waiting":
		until, _ := m["until"].(int64)
		return db.SetAlarm(until)
	default:
		return db.DeleteAlarm()
	}
}

// snapshot is what a run replays.
type snapshot struct {
	workflow, class, id string
	params              []byte
	created             int64
	steps               []stepRow
	events              []eventRow
	mocks               []mockRow
}

type mockRow struct {
	k string
	v []byte
}

type stepRow struct {
	key   string
	value []byte
	err   string
	until int64
	done  bool
}

type eventRow struct {
	seq     int64
	typ     string
	payload []byte
	ts      int64
}

// alarm starts a run of the instance when it is due.
func alarm(db *storage.DB, now time.Time) func(ctx context.Context, w binding.Worker) {
	if err := ensureSchema(db); err != nil {
		return nil
	}
	m, err := getMeta(db)
	if err != nil {
		return nil
	}
	st := str(m, "status")
	key := str(m, "workflow") + "/" + str(m, "id")
	leasesMu.Lock()
	_, busy := leases[key]
	leasesMu.Unlock()
	if busy {
		_ = db.SetAlarm(now.Add(leaseFor).UnixMilli())
		return nil
	}
	if st == "waiting" {
		until, _ := m["until"].(int64)
		if now.UnixMilli() < until {
			_ = db.SetAlarm(until)
			return nil
		}
	} else if st != "queued" && st != "running" {
		return nil
	}
	s := &snapshot{workflow: str(m, "workflow"), class: str(m, "class"), id: str(m, "id")}
	s.params, _ = m["params"].([]byte)
	s.created, _ = m["created"].(int64)
	rows, err := db.ExecAll(`SELECT key, value, err, until, done FROM _cellhost_wf_steps`)
	if err != nil {
		return nil
	}
	for _, r := range rows {
		x := stepRow{key: r[0].(string)}
		x.value, _ = r[1].([]byte)
		x.err, _ = r[2].(string)
		x.until, _ = r[3].(int64)
		d, _ := r[4].(int64)
		x.done = d == 1
		s.steps = append(s.steps, x)
	}
	if rows, err = db.ExecAll(`SELECT seq, type, payload, ts FROM _cellhost_wf_events WHERE used = 0 ORDER BY seq`); err != nil {
		return nil
	}
	for _, r := range rows {
		e := eventRow{typ: r[1].(string)}
		e.seq, _ = r[0].(int64)
		e.payload, _ = r[2].([]byte)
		e.ts, _ = r[3].(int64)
		s.events = append(s.events, e)
	}
	if rows, err = db.ExecAll(`SELECT k, v FROM _cellhost_wf_mock WHERE k NOT LIKE 'count:%'`); err != nil {
		return nil
	}
	for _, r := range rows {
		x := mockRow{k: r[0].(string)}
		x.v, _ = r[1].([]byte)
		s.mocks = append(s.mocks, x)
	}
	if setMeta(db, "status", "running") != nil {
		return nil
	}
	token := newToken()
	leasesMu.Lock()
	leases[key] = token
	leasesMu.Unlock()
	_ = db.SetAlarm(now.Add(leaseFor).UnixMilli()) // if this process dies
	return func(ctx context.Context, w binding.Worker) { runInstance(ctx, w, s, token) }
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// runInstance runs s once on the worker.
func runInstance(ctx context.Context, w binding.Worker, s *snapshot, token string) {
	err := w.RunWorker(ctx, func(jw *jsapi.Worker, ectx *goja.Object) (goja.Value, error) {
		rt := jw.Runtime()
		g := glueOf(rt)
		if g == nil {
			return nil, fmt.Errorf("workflow %s: not bound in this runtime", s.workflow)
		}
		cls := jw.Exports.Get(s.class)
		if cls == nil || goja.IsUndefined(cls) {
			return nil, fmt.Errorf("workflow %s: the worker exports no class %q", s.workflow, s.class)
		}
		snap := rt.NewObject()
		_ = snap.Set("id", s.id)
		_ = snap.Set("workflow", s.workflow)
		_ = snap.Set("created", s.created)
		params := goja.Undefined()
		if len(s.params) > 0 {
			v, err := clone.Deserialize(rt, s.params)
			if err != nil {
				return nil, err
			}
			params = v
		}
		_ = snap.Set("params", params)
		steps := rt.NewObject()
		for _, x := range s.steps {
			o := rt.NewObject()
			switch {
			case x.done && x.err != "":
				e := errOf(x.err)
				eo := rt.NewObject()
				_ = eo.Set("name", e.Name)
				_ = eo.Set("message", e.Message)
				_ = o.Set("error", eo)
			case x.done:
				_ = o.Set("done", true)
				if len(x.value) > 0 {
					v, err := clone.Deserialize(rt, x.value)
					if err != nil {
						return nil, err
					}
					_ = o.Set("value", v)
				}
			default:
				_ = o.Set("until", x.until)
			}
			_ = steps.Set(x.key, o)
		}
		_ = snap.Set("steps", steps)
		evs := make([]any, len(s.events))
		for i, e := range s.events {
			o := rt.NewObject()
			_ = o.Set("seq", e.seq)
			_ = o.Set("type", e.typ)
			_ = o.Set("ts", e.ts)
			var p goja.Value = goja.Undefined()
			if len(e.payload) > 0 {
				v, err := clone.Deserialize(rt, e.payload)
				if err != nil {
					return nil, err
				}
				p = v
			}
			_ = o.Set("payload", p)
			evs[i] = o
		}
		_ = snap.Set("events", rt.NewArray(evs...))
		mocks := rt.NewObject()
		for _, x := range s.mocks {
			var v goja.Value = goja.Undefined()
			if len(x.v) > 0 {
				d, err := clone.Deserialize(rt, x.v)
				if err != nil {
					return nil, err
				}
				v = d
			}
			_ = mocks.Set(x.k, v)
		}
		_ = snap.Set("mocks", mocks)
		callFn := func(req *goja.Object) goja.Value {
			r := requestOf(rt, req)
			r.Workflow, r.ID, r.Lease = s.workflow, s.id, token
			return call(rt, g.cells, r)
		}
		return g.run(goja.Undefined(), cls, jw.Env, ectx, snap, rt.ToValue(callFn))
	})
	req, _ := EncodeRequest(&Request{Op: "ended", Lease: token})
	_, _ = w.CallCell(ctx, Class, s.workflow+"/"+s.id, req)
	_ = err
}

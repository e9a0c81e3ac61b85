package workflows

import (
	"fmt"
	"strings"
	"time"

	"github.com/cellhost/cellhost/storage"
)

// The cell's side of cloudflare:test's workflow introspection
// (introspectWorkflow, introspectWorkflowInstance): mocks kept in the
// instance's cell (_cellhost_wf_mock) that its runs read from their
// snapshot, as @cloudflare/vitest-pool-workers' engine keeps its
// modifiers in the engine object's storage (workflows-shared's
// modifier.ts). A mock may be set before the instance is created.
//
// Mock keys (k), for a step key "<name>#<occurrence>":
//
//	sleeps, sleep:<key>            the sleep returns at once
//	retrydelays, retrydelay:<key>  a failed attempt is retried at once
//	eventtimeout:<key>             waitForEvent times out at once
//	result:<key>                   step.do's result, its callback not run
//	error:<key>[:<attempt>]        the attempt fails with this error
//	timeout:<key>[:<attempt>]      the attempt times out
//	count:<key>                    the next attempt a counted mock takes

var setPrefixes = []string{"sleeps", "retrydelays", "sleep:", "retrydelay:", "eventtimeout:"}

func putMock(db *storage.DB, k string, v []byte) error {
	_, err := db.ExecAll(`INSERT INTO _cellhost_wf_mock (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, k, v)
	return err
}

func hasMock(db *storage.DB, k string) (bool, error) {
	rows, err := db.ExecAll(`SELECT 1 FROM _cellhost_wf_mock WHERE k = ?`, k)
	return len(rows) > 0, err
}

func mock(db *storage.DB, r *Request, status string, m map[string]any) (Answer, bool) {
	fail := func(err error) (Answer, bool) { return Answer{Fail: err.Error()}, true }
	switch r.Mock {
	case "set":
		ok := false
		for _, p := range setPrefixes {
			ok = ok || r.Key == p || (strings.HasSuffix(p, ":") && strings.HasPrefix(r.Key, p))
		}
		if !ok {
			return Answer{Fail: fmt.Sprintf("workflow mock %q: unknown key", r.Key)}, false
		}
		if err := putMock(db, r.Key, r.Value); err != nil {
			return fail(err)
		}
	case "result", "error", "timeout":
		mocked, err := hasMock(db, "result:"+r.Key)
		if err != nil {
			return fail(err)
		}
		if mocked {
			what := map[string]string{"result": "Trying to mock step '%s' multiple times!", "error": "Trying to mock error on step '%s' after mocking its result!",
				"timeout": "Trying to force timeout on step '%s' after mocking its result!"}[r.Mock]
			return Answer{Fail: "[WorkflowIntrospector] " + fmt.Sprintf(what, r.Name)}, false
		}
		if r.Mock == "result" || r.Times == 0 {
			if err := putMock(db, r.Mock+":"+r.Key, r.Value); err != nil {
				return fail(err)
			}
			break
		}
		// Counted mocks take the attempts after those taken before, as the
		// pool's modifier counts them (its failure-index key).
		next := int64(1)
		rows, err := db.ExecAll(`SELECT v FROM _cellhost_wf_mock WHERE k = ?`, "count:"+r.Key)
		if err != nil {
			return fail(err)
		}
		if len(rows) > 0 {
			if b, ok := rows[0][0].([]byte); ok {
				_, _ = fmt.Sscan(string(b), &next)
			}
		}
		for i := int64(0); i < r.Times; i++ {
			if err := putMock(db, fmt.Sprintf("%s:%s:%d", r.Mock, r.Key, next+i), r.Value); err != nil {
				return fail(err)
			}
		}
		if err := putMock(db, "count:"+r.Key, []byte(fmt.Sprint(next+r.Times))); err != nil {
			return fail(err)
		}
	case "event":
		if r.Type == "" {
			return Answer{Fail: "mockEvent() needs a type"}, false
		}
		if _, err := db.ExecAll(`INSERT INTO _cellhost_wf_events (type, payload, ts) VALUES (?, ?, ?)`, r.Type, r.Payload, time.Now().UnixMilli()); err != nil {
			return fail(err)
		}
		if status == "waiting" && str(m, "wait") == r.Type {
			if err := setMeta(db, "status", "queued"); err != nil {
				return fail(err)
			}
		}
	}
	return Answer{Status: status}, true
}

// inspect answers the instance's status, output and error, and the
// record of step r.Key once that step has finished.
func inspect(db *storage.DB, r *Request, status string, m map[string]any) (Answer, bool) {
	a := Answer{Status: status, Error: errOf(str(m, "error"))}
	a.Output, _ = m["output"].([]byte)
	if r.Key != "" {
		rows, err := db.ExecAll(`SELECT value, err FROM _cellhost_wf_steps WHERE key = ? AND done = 1`, r.Key)
		if err != nil {
			return Answer{Fail: err.Error()}, false
		}
		if len(rows) > 0 {
			st := &StepInfo{}
			st.Value, _ = rows[0][0].([]byte)
			e, _ := rows[0][1].(string)
			st.Error = errOf(e)
			a.Step = st
		}
	}
	return a, false
}

// dispose forgets the instance: its status, steps, events and mocks (the
// pool's dispose aborts the instance's engine); a run under way stops at
// its next step.
func dispose(db *storage.DB, m map[string]any) (Answer, bool) {
	for _, t := range []string{"_cellhost_wf", "_cellhost_wf_steps", "_cellhost_wf_events", "_cellhost_wf_mock"} {
		if _, err := db.ExecAll(`DELETE FROM ` + t); err != nil {
			return Answer{Fail: err.Error()}, true
		}
	}
	if id := str(m, "id"); id != "" {
		leasesMu.Lock()
		delete(leases, str(m, "workflow")+"/"+id)
		leasesMu.Unlock()
	}
	return Answer{}, true
}

package queues

import (
	"context"
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

// A queue's cell holds its messages in one table; visible_at is when a
// message may be delivered next (its send time plus its delay, the end of
// its retry delay, or, with leased set, the end of the lease of a
// delivery in flight).

// leaseFor is how long a delivery may take before its messages are
// delivered again: the ceiling of a consumer's wall time here (a crashed
// node's deliveries come back after it).
var leaseFor = 30 * time.Second

// leases are the deliveries in flight in this process, by queue: one batch
// at a time per queue (max_concurrency 1). Only the node owning a queue's
// cell delivers its messages, so the map needs no coordination; a restart
// forgets it, and the stored visible_at brings the messages back.
var (
	leasesMu sync.Mutex
	leases   = map[string]lease{}
)

type lease struct {
	token string
	until time.Time
}

func ensureSchema(db *storage.DB) error {
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS _cellhost_queue (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, body BLOB NOT NULL, content_type TEXT NOT NULL, ts INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, visible_at INTEGER NOT NULL, leased INTEGER NOT NULL DEFAULT 0)`,
		`CREATE INDEX IF NOT EXISTS _cellhost_queue_visible ON _cellhost_queue (visible_at, seq)`,
		`CREATE TABLE IF NOT EXISTS _cellhost_queue_meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)`,
	} {
		if _, err := db.ExecAll(q); err != nil {
			return err
		}
	}
	return nil
}

// serve answers a send, settle or kick request in a turn of the cell.
func serve(db *storage.DB, b []byte) ([]byte, bool) {
	answer := func(err error) []byte {
		r := Response{}
		if err != nil {
			r.Error = err.Error()
		}
		out, _ := json.Marshal(r)
		return out
	}
	req, err := DecodeRequest(b)
	if err != nil {
		return answer(err), false
	}
	now := time.Now()
	if err := ensureSchema(db); err != nil {
		return answer(err), true
	}
	if _, err := db.ExecAll(`INSERT OR IGNORE INTO _cellhost_queue_meta (k, v) VALUES ('queue', ?)`, req.Queue); err != nil {
		return answer(err), true
	}
	var backlog Response
	switch req.Op {
	case "send":
		rows, err := db.ExecAll(`SELECT count(*), coalesce(sum(length(body)), 0), coalesce(min(ts), 0) FROM _cellhost_queue`)
		if err != nil {
			return answer(err), true
		}
		backlog.BacklogCount, _ = rows[0][0].(int64)
		backlog.BacklogBytes, _ = rows[0][1].(int64)
		backlog.OldestMs, _ = rows[0][2].(int64)
		for _, m := range req.Messages {
			if _, err := db.ExecAll(`INSERT OR IGNORE INTO _cellhost_queue (id, body, content_type, ts, attempts, visible_at) VALUES (?, ?, ?, ?, ?, ?)`,
				m.ID, m.Body, m.ContentType, m.TimestampMs, m.Attempts, now.UnixMilli()+m.DelayMs); err != nil {
				return answer(err), true
			}
		}
	case "settle":
		for _, id := range append(append([]string(nil), req.Acks...), req.Dead...) {
			if _, err := db.ExecAll(`DELETE FROM _cellhost_queue WHERE id = ?`, id); err != nil {
				return answer(err), true
			}
		}
		for _, r := range req.Retries {
			if _, err := db.ExecAll(`UPDATE _cellhost_queue SET visible_at = ?, leased = 0 WHERE id = ?`, now.UnixMilli()+r.DelayMs, r.ID); err != nil {
				return answer(err), true
			}
		}
		leasesMu.Lock()
		if leases[req.Queue].token == req.Lease {
			delete(leases, req.Queue)
		}
		leasesMu.Unlock()
	}
	if err := rearm(db, req.Queue, now); err != nil {
		return answer(err), true
	}
	out, _ := json.Marshal(backlog)
	return out, true
}

// rearm sets the cell's alarm for the next batch: now when a full batch
// is ready, else max_batch_timeout after the first message became
// visible; the end of the lease while a delivery is in flight; none when
// the queue is empty or has no consumer in this process (a kick re-arms
// it when one binds).
func rearm(db *storage.DB, q string, now time.Time) (err error) {
	c, ok := consumerOf(q)
	if !ok {
		return db.DeleteAlarm()
	}
	rows, err := db.ExecAll(`SELECT min(visible_at), count(*) FILTER (WHERE visible_at <= ?) FROM _cellhost_queue`, now.UnixMilli())
	if err != nil {
		return err
	}
	first, ok := rows[0][0].(int64)
	if !ok {
		return db.DeleteAlarm()
	}
	ready, _ := rows[0][1].(int64)
	leasesMu.Lock()
	l, busy := leases[q]
	leasesMu.Unlock()
	if !busy {
		// No delivery of this process is in flight: a lease stored is one
		// of an earlier activation (a restart, a node that died): its
		// messages are due now.
		if _, err := db.ExecAll(`UPDATE _cellhost_queue SET visible_at = ?, leased = 0 WHERE leased = 1`, now.UnixMilli()); err != nil {
			return err
		}
		if rows, err = db.ExecAll(`SELECT min(visible_at), count(*) FILTER (WHERE visible_at <= ?) FROM _cellhost_queue`, now.UnixMilli()); err != nil {
			return err
		}
		first, _ = rows[0][0].(int64)
		ready, _ = rows[0][1].(int64)
	}
	at := first + c.MaxBatchTimeout.Milliseconds()
	switch {
	case busy && now.Before(l.until):
		at = l.until.UnixMilli()
	case ready >= int64(c.MaxBatchSize):
		at = now.UnixMilli()
	}
	return db.SetAlarm(at)
}

func queueOf(db *storage.DB) string {
	rows, err := db.ExecAll(`SELECT v FROM _cellhost_queue_meta WHERE k = 'queue'`)
	if err != nil || len(rows) == 0 {
		return ""
	}
	s, _ := rows[0][0].(string)
	return s
}

// alarm leases the next batch and returns its delivery.
func alarm(db *storage.DB, now time.Time) func(ctx context.Context, w binding.Worker) {
	if err := ensureSchema(db); err != nil {
		return nil
	}
	q := queueOf(db)
	c, ok := consumerOf(q)
	if q == "" || !ok {
		return nil
	}
	leasesMu.Lock()
	l, busy := leases[q]
	leasesMu.Unlock()
	if busy && now.Before(l.until) {
		_ = rearm(db, q, now)
		return nil
	}
	if busy { // its lease ended: the delivery is given up
		leasesMu.Lock()
		delete(leases, q)
		leasesMu.Unlock()
	}
	if err := rearm(db, q, now); err != nil { // releases stale leases
		return nil
	}
	rows, err := db.ExecAll(`SELECT id, body, content_type, ts, attempts FROM _cellhost_queue WHERE visible_at <= ? ORDER BY visible_at, seq LIMIT ?`,
		now.UnixMilli(), int64(c.MaxBatchSize))
	if err != nil {
		_ = db.SetAlarm(now.Add(time.Second).UnixMilli()) // try again, without spinning
		return nil
	}
	if len(rows) == 0 {
		_ = rearm(db, q, now)
		return nil
	}
	until := now.Add(leaseFor)
	var batch []Message
	for _, r := range rows {
		m := Message{}
		m.ID, _ = r[0].(string)
		m.Body, _ = r[1].([]byte)
		m.ContentType, _ = r[2].(string)
		m.TimestampMs, _ = r[3].(int64)
		m.Attempts, _ = r[4].(int64)
		m.Attempts++
		if _, err := db.ExecAll(`UPDATE _cellhost_queue SET attempts = ?, visible_at = ?, leased = 1 WHERE id = ?`, m.Attempts, until.UnixMilli(), m.ID); err != nil {
			return nil
		}
		batch = append(batch, m)
	}
	token := newID()
	leasesMu.Lock()
	leases[q] = lease{token: token, until: until}
	leasesMu.Unlock()
	_ = rearm(db, q, now)
	return func(ctx context.Context, w binding.Worker) { deliver(ctx, w, c, token, batch) }
}

// outcome is what the consumer decided for a message.
type outcome struct {
	action  string  // "ack", "retry" or "" (undecided)
	delayS  float64 // retry delay in seconds; < 0: the consumer's retry_delay
	decided bool
}

// deliver runs the consumer on batch and writes the outcome back.
func deliver(ctx context.Context, w binding.Worker, c Consumer, token string, batch []Message) {
	ctx, cancel := context.WithTimeout(ctx, leaseFor)
	defer cancel()
	out := make(map[string]*outcome, len(batch))
	for _, m := range batch {
		out[m.ID] = &outcome{}
	}
	all := &outcome{}
	err := w.RunWorker(ctx, func(jw *jsapi.Worker, ectx *goja.Object) (goja.Value, error) {
		rt := jw.Runtime()
		raw := make([]any, len(batch))
		for i, m := range batch {
			o := rt.NewObject()
			_ = o.Set("id", m.ID)
			_ = o.Set("timestampMs", m.TimestampMs)
			_ = o.Set("attempts", m.Attempts)
			body, err := decodeBody(rt, m)
			if err != nil {
				return nil, err
			}
			_ = o.Set("body", body)
			raw[i] = o
		}
		record := func(id, action string, delay float64) {
			o := all
			if id != "" {
				o = out[id]
			}
			if o != nil && !o.decided {
				*o = outcome{action: action, delayS: delay, decided: true}
			}
		}
		fv, err := rt.RunProgram(batchProgram)
		if err != nil {
			return nil, err
		}
		mk, _ := goja.AssertFunction(fv)
		bv, err := mk(goja.Undefined(), rt.ToValue(c.Queue), rt.NewArray(raw...), rt.ToValue(record))
		if err != nil {
			return nil, err
		}
		v, ok, err := jw.CallHandler("queue", ectx, bv)
		if err == nil && !ok {
			err = fmt.Errorf("the worker has no default export with a queue() handler for the queue %q", c.Queue)
		}
		return v, err
	})
	req := &Request{Op: "settle", Queue: c.Queue, Lease: token}
	var dead []Message
	for _, m := range batch {
		o := out[m.ID]
		if !o.decided {
			o = all
		}
		action := o.action
		if !o.decided {
			action = "ack"
			if err != nil {
				action = "retry"
			}
		}
		if action == "ack" {
			req.Acks = append(req.Acks, m.ID)
			continue
		}
		if m.Attempts > int64(c.MaxRetries) {
			dead = append(dead, m)
			continue
		}
		delay := c.RetryDelay.Milliseconds()
		if o.decided && o.delayS >= 0 {
			delay = int64(o.delayS * 1000)
		}
		req.Retries = append(req.Retries, Retry{ID: m.ID, DelayMs: delay})
	}
	if len(dead) > 0 && c.DeadLetterQueue != "" {
		send := &Request{Op: "send", Queue: c.DeadLetterQueue}
		for _, m := range dead {
			m.Attempts, m.DelayMs = 0, 0
			send.Messages = append(send.Messages, m)
		}
		b, _ := EncodeRequest(send)
		resp, err := w.CallCell(ctx, Class, c.DeadLetterQueue, b)
		if err == nil {
			err = responseError(resp)
		}
		if err != nil {
			return // the lease ends and the batch comes back: at least once
		}
	}
	for _, m := range dead {
		req.Dead = append(req.Dead, m.ID)
	}
	b, _ := EncodeRequest(req)
	_, _ = w.CallCell(ctx, Class, c.Queue, b)
}

// decodeBody is a message's body as the consumer sees it.
func decodeBody(rt *goja.Runtime, m Message) (goja.Value, error) {
	switch m.ContentType {
	case "text":
		return rt.ToValue(string(m.Body)), nil
	case "json":
		parse, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
		return parse(goja.Undefined(), rt.ToValue(string(m.Body)))
	case "bytes":
		return rt.ToValue(rt.NewArrayBuffer(append([]byte(nil), m.Body...))), nil
	default:
		return clone.Deserialize(rt, m.Body)
	}
}

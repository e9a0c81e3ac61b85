package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/cellhost/cellhost/jsapi"
)

// cronEntry is one cron trigger and its parsed schedule.
type cronEntry struct {
	expr  string
	sched cron.Schedule
}

// parseCrons parses the triggers' crons (five fields, as Cloudflare's);
// one it cannot read is a warning, and is not fired.
func parseCrons(exprs []string, warn io.Writer) []cronEntry {
	var out []cronEntry
	for _, e := range exprs {
		s, err := cron.ParseStandard(e)
		if err != nil {
			fmt.Fprintf(warn, "%s cron trigger %q will not fire: %v\n", markWarn, e, err)
			continue
		}
		out = append(out, cronEntry{expr: e, sched: s})
	}
	return out
}

// nextCron returns the entry firing first after now, and when.
func nextCron(entries []cronEntry, now time.Time) (cronEntry, time.Time, bool) {
	var best cronEntry
	var at time.Time
	for _, e := range entries {
		if t := e.sched.Next(now); !t.IsZero() && (at.IsZero() || t.Before(at)) {
			best, at = e, t
		}
	}
	return best, at, !at.IsZero()
}

// scheduled runs the current host's scheduled handler for one trigger and
// logs it as wrangler logs a request.
func (d *devServer) scheduled(ctx context.Context, expr string, at time.Time) error {
	d.mu.Lock()
	h := d.h
	d.mu.Unlock()
	if h == nil {
		return errors.New("the worker is not running")
	}
	start := time.Now()
	err := h.Scheduled(ctx, expr, at)
	status := "ok"
	if err != nil {
		status = "failed: " + err.Error()
	}
	if d.reqLog != nil {
		fmt.Fprintf(d.reqLog, "[cellhost] scheduled %q %s (%dms)\n", expr, status, time.Since(start).Milliseconds())
	}
	return err
}

// runCrons fires the project's cron triggers on schedule until ctx ends;
// a reload (cronWake) re-reads them.
func (d *devServer) runCrons(ctx context.Context) {
	for {
		d.mu.Lock()
		exprs := d.cfg.Crons
		d.mu.Unlock()
		entries := parseCrons(exprs, io.Discard) // warned at start
		var fire <-chan time.Time
		var timer *time.Timer
		e, at, ok := nextCron(entries, time.Now())
		if ok {
			timer = time.NewTimer(time.Until(at))
			fire = timer.C
		}
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return
		case <-d.cronWake:
			if timer != nil {
				timer.Stop()
			}
		case <-fire:
			_ = d.scheduled(ctx, e.expr, at)
		}
	}
}

// serveScheduled answers wrangler's test endpoint for cron triggers:
// GET /cdn-cgi/handler/scheduled?cron=<expr>&time=<ms> (also the older
// /__scheduled) runs the scheduled handler at once.
func (d *devServer) serveScheduled(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	expr := q.Get("cron")
	at := time.Now()
	if ms, err := strconv.ParseInt(q.Get("time"), 10, 64); err == nil {
		at = time.UnixMilli(ms)
	}
	err := d.scheduled(r.Context(), expr, at)
	switch {
	case errors.Is(err, jsapi.ErrNoScheduled):
		http.Error(w, "cellhost dev: "+err.Error(), http.StatusNotFound)
	case err != nil:
		text := err.Error()
		var se *jsapi.ScriptError
		if errors.As(err, &se) && se.Stack != "" {
			text = se.Stack
		}
		http.Error(w, shortenStack(text, d.projectDir()), http.StatusInternalServerError)
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "Ran scheduled event")
	}
}

func (d *devServer) projectDir() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cfg.Dir + "/"
}

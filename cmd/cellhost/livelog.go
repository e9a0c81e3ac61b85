package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// logHub keeps the dev server's recent log lines (requests, console
// output, errors) and hands new ones to the inspector's live log
// (server-sent events at /_cellhost/log).
type logHub struct {
	mu     sync.Mutex
	recent []string
	subs   map[chan string]struct{}
	closed bool
}

// logHubKeep is how many recent lines a new viewer gets first.
const logHubKeep = 200

// ansiRE matches the colour codes of the terminal log.
var ansiRE = regexp.MustCompile("\x1b\\[[0-9;]*m")

func newLogHub() *logHub { return &logHub{subs: map[chan string]struct{}{}} }

// add records one line (without its newline) and sends it to every viewer;
// a viewer too slow to take it misses it.
func (h *logHub) add(line string) {
	line = ansiRE.ReplaceAllString(line, "")
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recent = append(h.recent, line)
	if len(h.recent) > logHubKeep {
		h.recent = append(h.recent[:0], h.recent[len(h.recent)-logHubKeep:]...)
	}
	for ch := range h.subs {
		select {
		case ch <- line:
		default:
		}
	}
}

// subscribe returns the recent lines and a channel of the next ones, closed
// by cancel or when the hub closes.
func (h *logHub) subscribe() (recent []string, lines <-chan string, cancel func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ch := make(chan string, 256)
	recent = append([]string(nil), h.recent...)
	if h.closed {
		close(ch)
		return recent, ch, func() {}
	}
	h.subs[ch] = struct{}{}
	return recent, ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := h.subs[ch]; ok {
			delete(h.subs, ch)
			close(ch)
		}
	}
}

// close ends every viewer's stream (the server is shutting down).
func (h *logHub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for ch := range h.subs {
		delete(h.subs, ch)
		close(ch)
	}
}

// tee returns a writer that writes to w and adds each whole line to h.
func (h *logHub) tee(w io.Writer) io.Writer { return &hubWriter{w: w, h: h} }

type hubWriter struct {
	w       io.Writer
	h       *logHub
	mu      sync.Mutex
	partial []byte
}

func (t *hubWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	t.mu.Lock()
	t.partial = append(t.partial, p...)
	var lines []string
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	t.partial = append([]byte(nil), t.partial...)
	t.mu.Unlock()
	for _, l := range lines {
		t.h.add(l)
	}
	return n, err
}

// serveEvents streams the log as server-sent events: the recent lines,
// then each new one, until the viewer leaves or the server shuts down.
func (h *logHub) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	flush := func() bool { return rc.Flush() == nil }
	recent, lines, cancel := h.subscribe()
	defer cancel()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	send := func(line string) {
		// One event per line; "data:" fields may not hold newlines.
		fmt.Fprintf(w, "data: %s\n\n", strings.ReplaceAll(line, "\r", ""))
	}
	w.WriteHeader(http.StatusOK)
	for _, l := range recent {
		send(l)
	}
	if !flush() {
		return
	}
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return
			}
			send(l)
			if !flush() {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/jsapi"
)

// isTerminal reports whether w is a terminal (for colours).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isTerminalFd(f.Fd())
}

// ANSI colours of the dev log.
const (
	colRed    = "\x1b[31m"
	colYellow = "\x1b[33m"
	colDim    = "\x1b[2m"
	colReset  = "\x1b[0m"
)

// frameRE matches a goja stack frame's position: an optional absolute
// directory, the file:line:column, and goja's bytecode offset "(N)".
var frameRE = regexp.MustCompile(`([^\s()]+:\d+:\d+)\(\d+\)`)

// devLog is the dev server's terminal log: whole lines from many
// goroutines, stack frames shortened to project-relative file:line:column,
// errors and warnings marked (coloured on a terminal).
type devLog struct {
	mu      sync.Mutex
	w       io.Writer
	dir     string // project directory; frames under it are shown relative
	color   bool
	partial []byte
}

func newDevLog(w io.Writer, dir string) *devLog {
	return &devLog{w: w, dir: strings.TrimSuffix(dir, "/") + "/", color: isTerminal(w)}
}

// Write buffers up to the last newline and prints whole lines.
func (l *devLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	i := bytes.LastIndexByte(l.partial, '\n')
	if i < 0 {
		return len(p), nil
	}
	chunk := string(l.partial[:i+1])
	l.partial = append(l.partial[:0], l.partial[i+1:]...)
	_, err := io.WriteString(l.w, l.format(chunk))
	return len(p), err
}

// format rewrites the lines of chunk.
func (l *devLog) format(chunk string) string {
	chunk = shortenStack(chunk, l.dir)
	if strings.HasPrefix(chunk, "Uncaught ") {
		chunk = markError + " " + strings.TrimRight(chunk, "\n") + "\n"
		if l.color {
			chunk = colRed + strings.TrimSuffix(chunk, "\n") + colReset + "\n"
		}
	} else if l.color && (strings.HasPrefix(chunk, markWarn) || strings.HasPrefix(chunk, markError)) {
		c := colYellow
		if strings.HasPrefix(chunk, markError) {
			c = colRed
		}
		chunk = c + strings.TrimSuffix(chunk, "\n") + colReset + "\n"
	}
	return chunk
}

// console prints one console line of the worker or of an object (scope),
// labelled with the object and marked by level, as wrangler marks
// console.warn and console.error.
func (l *devLog) console(scope, level, line string) {
	var b strings.Builder
	col := ""
	switch level {
	case "error":
		b.WriteString(markError + " ")
		col = colRed
	case "warn":
		b.WriteString(markWarn + " ")
		col = colYellow
	case "debug":
		col = colDim
	}
	if scope != "" {
		b.WriteString("[" + shortScope(scope) + "] ")
	}
	b.WriteString(shortenStack(line, l.dir))
	out := b.String()
	if l.color && col != "" {
		out = col + out + colReset
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, out+"\n")
}

// internalFrameRE matches a stack frame inside cellhost's own JS (the
// Workers model, the Web APIs) or a native function.
// An anonymous frame has no parentheses ("at cellhost:node.js:717:35(6)").
var internalFrameRE = regexp.MustCompile(`(?m)^[ \t]+at (?:[^\n]*\((?:cellhost:[^)\n]*|native)\)|(?:async )?cellhost:[^\s]*)[ \t]*(?:\n|$)`)

// shortenStack drops goja's bytecode offsets, the project directory and
// cellhost's internal frames from stacks.
func shortenStack(s, dir string) string {
	s = frameRE.ReplaceAllString(s, "$1")
	s = internalFrameRE.ReplaceAllString(s, "")
	if dir != "/" {
		s = strings.ReplaceAll(s, "("+dir, "(")
		s = strings.ReplaceAll(s, " "+dir, " ")
	}
	return s
}

// errorPage writes the dev 500 answer: the error and its source-mapped
// stack, as HTML for a browser, as plain text otherwise.
func errorPage(dir string) func(w http.ResponseWriter, r *http.Request, err error) {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		text := err.Error()
		var se *jsapi.ScriptError
		if errors.As(err, &se) && se.Stack != "" {
			text = se.Stack
		}
		text = strings.TrimRight(shortenStack(text, strings.TrimSuffix(dir, "/")+"/"), "\n")
		if strings.Contains(r.Header.Get("Accept"), "text/html") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusInternalServerError)
			first, rest, _ := strings.Cut(text, "\n")
			fmt.Fprintf(w, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>%s</title>
<style>body{font-family:system-ui,sans-serif;margin:2em;color:#222}h1{color:#b00020;font-size:1.4em}
pre{background:#f6f6f6;padding:1em;overflow:auto}small{color:#777}</style></head>
<body><h1>%s</h1><pre>%s</pre><p><small>%s %s · cellhost dev shows this page in development only; in production the client sees "Internal Server Error".</small></p></body></html>
`, html.EscapeString(first), html.EscapeString(first), html.EscapeString(rest), html.EscapeString(r.Method), html.EscapeString(r.URL.RequestURI()))
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, text+"\n")
	}
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController (and WebSocket upgrades through
// Hijack) reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Hijack passes a WebSocket upgrade through.
func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := http.NewResponseController(s.ResponseWriter).Hijack()
	if err == nil && s.status == 0 {
		s.status = http.StatusSwitchingProtocols
	}
	return c, rw, err
}

// Flush passes a flush through.
func (s *statusRecorder) Flush() { _ = http.NewResponseController(s.ResponseWriter).Flush() }

// requestLine is the one log line of a request, as wrangler's
// "[wrangler:info] GET / 200 OK (12ms)".
func requestLine(r *http.Request, status int, d time.Duration, color bool) string {
	if status == 0 {
		status = http.StatusOK
	}
	obj := ""
	if rest, ok := strings.CutPrefix(r.URL.Path, "/do/"); ok {
		parts := strings.SplitN(rest, "/", 3)
		if len(parts) >= 2 {
			obj = " → " + parts[0] + "/" + parts[1]
		}
	}
	line := fmt.Sprintf("[cellhost] %s %s %d %s (%dms)%s\n", r.Method, r.URL.RequestURI(), status, http.StatusText(status), d.Milliseconds(), obj)
	if color {
		switch {
		case status >= 500:
			line = colRed + strings.TrimSuffix(line, "\n") + colReset + "\n"
		case status >= 400:
			line = colYellow + strings.TrimSuffix(line, "\n") + colReset + "\n"
		}
	}
	return line
}

// devHandler is the dev server's slog handler for the host's messages:
// errors marked "✘ [ERROR]" and warnings "▲ [WARNING]" (coloured on a
// terminal), labelled with the object they concern (Class:id, the id
// shortened), stacks shortened; debug messages only with --verbose (and,
// for a handler of internal lines, info messages too).
type devHandler struct {
	l        *devLog
	verbose  bool
	internal bool // the lines are cellhost's internal ones: below warnings only with --verbose
	attrs    []slog.Attr
}

func (h *devHandler) Enabled(_ context.Context, lv slog.Level) bool {
	switch {
	case h.verbose:
		return true
	case h.internal:
		return lv >= slog.LevelWarn
	}
	return lv >= slog.LevelInfo
}

func (h *devHandler) Handle(_ context.Context, r slog.Record) error {
	var scope string
	var rest []string
	add := func(a slog.Attr) bool {
		switch a.Key {
		case "scope":
			scope = shortScope(a.Value.String())
		case "shard":
		default:
			rest = append(rest, fmt.Sprintf("%s=%v", a.Key, a.Value.Any()))
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	var b strings.Builder
	mark, col := "", ""
	switch {
	case r.Level >= slog.LevelError:
		mark, col = markError+" ", colRed
	case r.Level >= slog.LevelWarn:
		mark, col = markWarn+" ", colYellow
	case r.Level < slog.LevelInfo:
		col = colDim
	}
	b.WriteString(mark)
	if scope != "" {
		b.WriteString("[" + scope + "] ")
	}
	b.WriteString(strings.TrimRight(shortenStack(r.Message, h.l.dir), "\n"))
	for _, a := range rest {
		b.WriteString(" " + a)
	}
	line := b.String()
	if h.l.color && col != "" {
		line = col + line + colReset
	}
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	_, err := io.WriteString(h.l.w, line+"\n")
	return err
}

func (h *devHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

func (h *devHandler) WithGroup(string) slog.Handler { return h }

// shortScope shortens "Class:<64 hex>" to "Class:<first 8 hex>".
func shortScope(s string) string {
	if class, id, ok := strings.Cut(s, ":"); ok && len(id) == 64 {
		return class + ":" + id[:8]
	}
	return s
}

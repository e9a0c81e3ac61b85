package host

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"
)

// Host messages go to Config.Logger (log/slog), with the attributes "scope"
// (the object, "<Class>:<id>") and "shard" (the shard's index) where they
// apply. The default logger writes readable lines to Config.Log, as the
// console does: "<scope>: <message>", then any other attribute as
// key=value ("shard" is left out: it is for structured handlers).

// newConsoleHandler returns the default handler: readable lines on w, at
// level Info and above.
func newConsoleHandler(w io.Writer) slog.Handler {
	return &consoleHandler{out: &lockedWriter{w: w}}
}

// lockedWriter serialises whole lines from every handler derived from one
// consoleHandler.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

type consoleHandler struct {
	out   *lockedWriter
	attrs []slog.Attr // from WithAttrs
	group string      // prefix from WithGroup
}

func (h *consoleHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *consoleHandler) Handle(_ context.Context, r slog.Record) error {
	var scope string
	var rest []slog.Attr
	add := func(a slog.Attr) bool {
		switch a.Key {
		case "scope":
			scope = a.Value.String()
		case "shard":
		default:
			if h.group != "" {
				a.Key = h.group + "." + a.Key
			}
			rest = append(rest, a)
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	var b bytes.Buffer
	if scope != "" {
		b.WriteString(logSafe(scope))
		b.WriteString(": ")
	}
	b.WriteString(logSafeText(r.Message))
	for _, a := range rest {
		fmt.Fprintf(&b, " %s=%s", logSafe(a.Key), logSafe(fmt.Sprint(a.Value.Any())))
	}
	b.WriteByte('\n')
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	_, err := h.out.w.Write(b.Bytes())
	return err
}

func (h *consoleHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

func (h *consoleHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}

// logSafe escapes what a terminal or a log reader would act on in a value
// that may come from a client (an object's name, a class in a URL): C0 and
// C1 controls, DEL, line and paragraph separators and the bidirectional
// overrides become \xNN or \uNNNN, so a name cannot start a forged line,
// move the cursor or colour the console. Invalid UTF-8 becomes \xNN too.
func logSafe(s string) string { return escapeControls(s, false) }

// logSafeText is logSafe for a message, whose own line breaks and tabs
// (a stack trace) stay.
func logSafeText(s string) string { return escapeControls(s, true) }

func escapeControls(s string, keepLines bool) string {
	clean := true
	for _, r := range s {
		if isLogControl(r, keepLines) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, w := 0, 0; i < len(s); i += w {
		r, n := utf8.DecodeRuneInString(s[i:])
		w = n
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case isLogControl(r, keepLines) && r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		case isLogControl(r, keepLines):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+n])
		}
	}
	return b.String()
}

func isLogControl(r rune, keepLines bool) bool {
	switch {
	case keepLines && (r == '\n' || r == '\t'):
		return false
	case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x2028, r == 0x2029,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == utf8.RuneError:
		return true
	}
	return false
}

// logger is the shard's logger (attribute shard).
func (s *shard) logger() *slog.Logger { return s.log }

// logger is the cell's logger (attributes scope and shard).
func (c *cell) logger() *slog.Logger { return c.s.log.With("scope", c.scope) }

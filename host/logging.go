package host

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
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
		b.WriteString(scope)
		b.WriteString(": ")
	}
	b.WriteString(r.Message)
	for _, a := range rest {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value.Any())
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

// logger is the shard's logger (attribute shard).
func (s *shard) logger() *slog.Logger { return s.log }

// logger is the cell's logger (attributes scope and shard).
func (c *cell) logger() *slog.Logger { return c.s.log.With("scope", c.scope) }

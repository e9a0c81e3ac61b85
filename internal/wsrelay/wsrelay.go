// Package wsrelay is the message format of a WebSocket relayed between
// cellhost nodes: the node a client connected to (the edge) holds the
// client's connection and opens a relay, itself a WebSocket, to the node
// that owns the Durable Object. The relay's first message, from the owner,
// is a Hello (how the object answered the upgrade); after it, every frame
// of either side travels as the same frame on the other (messages, Close
// frames). When the owner dies, the edge keeps the client's connection and
// opens a new relay with Open.Socket set: the new owner re-attaches the
// hibernated WebSocket stored under that id in the object's database.
//
// host (the owner's end, and a WebSocket a worker accept()s from a
// relay) and fleet (the edge and the signed transport) share these types
// and limits; neither imports the other.
package wsrelay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// The limits both ends of a relay (and host's own client connections)
// keep.
const (
	// MaxMessage is workerd's limit on a received message (1 MiB).
	MaxMessage = 1 << 20
	// WriteTimeout bounds one frame's write to a slow peer.
	WriteTimeout = 30 * time.Second
	// CloseTimeout is how long a side that sent or passed on a Close
	// frame waits for the other's.
	CloseTimeout = 5 * time.Second
	// ReattachTimeout is how long an edge tries to re-attach a
	// hibernatable socket whose owner died; an owner keeps the rows of
	// hibernated sockets nobody re-attached twice as long.
	ReattachTimeout = 60 * time.Second
)

// HopHeader reports whether the response header name (lowercased) is one
// an upgrade writes itself, so it is not passed on from an object's
// answer.
func HopHeader(name string) bool { return hopHeaders[name] }

var hopHeaders = map[string]bool{
	"upgrade": true, "connection": true, "sec-websocket-accept": true, "sec-websocket-extensions": true,
	"content-length": true, "transfer-encoding": true, "content-type": true, "keep-alive": true,
}

// Open is what the edge asks of the owner.
type Open struct {
	Class  string      `json:"class"`
	ID     string      `json:"id"`
	Name   string      `json:"name,omitempty"`
	Method string      `json:"method"`
	URL    string      `json:"url"` // the client's original URL
	Header [][2]string `json:"header"`
	// Socket, when set, re-attaches the hibernated WebSocket with this
	// durable id instead of running the object's fetch.
	Socket string `json:"socket,omitempty"`
	// Edge is the node id of the edge (for logs).
	Edge string `json:"edge,omitempty"`
}

// Hello is the owner's first message on a relay.
type Hello struct {
	// Status is the object's answer: 101 (the relay carries the
	// WebSocket from now on), or any other status with Header and Body
	// (the relay ends).
	Status     int         `json:"status,omitempty"`
	StatusText string      `json:"status_text,omitempty"`
	Header     [][2]string `json:"header,omitempty"`
	Body       []byte      `json:"body,omitempty"`
	// Socket is the durable id of a WebSocket accepted with
	// ctx.acceptWebSocket() (the edge re-attaches it after the owner's
	// death); empty for a socket accepted with accept().
	Socket string `json:"socket,omitempty"`
	Error  *Error `json:"error,omitempty"`
}

// Error kinds of a Hello.
const (
	// KindNotOwner: the node does not own the object (Addr: the owner
	// it found); nothing ran.
	KindNotOwner = "not_owner"
	// KindGone: the WebSocket to re-attach is not stored (it was closed,
	// or it was not hibernatable).
	KindGone = "gone"
	// KindScript: the object threw (Name, Message, Stack).
	KindScript = "script"
	// KindOther: any other failure.
	KindOther = "other"
)

// Error is a failure in a Hello.
type Error struct {
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
	Name    string `json:"name,omitempty"`
	Stack   string `json:"stack,omitempty"`
	Addr    string `json:"addr,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// DecodeOpen decodes and checks an Open.
func DecodeOpen(b []byte) (*Open, error) {
	var o Open
	if err := decodeStrict(b, &o); err != nil {
		return nil, fmt.Errorf("decode relay open: %w", err)
	}
	if o.Class == "" || o.ID == "" || o.URL == "" {
		return nil, errors.New("decode relay open: no class, id or url")
	}
	return &o, nil
}

// DecodeHello decodes and checks a Hello.
func DecodeHello(b []byte) (*Hello, error) {
	var h Hello
	if err := decodeStrict(b, &h); err != nil {
		return nil, fmt.Errorf("decode relay hello: %w", err)
	}
	if len(h.Header) == 0 {
		h.Header = nil
	}
	if len(h.Body) == 0 {
		h.Body = nil
	}
	if e := h.Error; e != nil {
		switch e.Kind {
		case KindNotOwner, KindGone, KindScript, KindOther:
		default:
			return nil, fmt.Errorf("decode relay hello: unknown error kind %q", e.Kind)
		}
		return &h, nil
	}
	if h.Status < 100 || h.Status > 999 {
		return nil, fmt.Errorf("decode relay hello: status %d", h.Status)
	}
	return &h, nil
}

// decodeStrict decodes one JSON value into v; trailing data is an error.
// Unknown members are skipped (a newer node's additions during a rolling
// upgrade; see fleet's decodeStrict).
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

package fleet

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The peer protocol (cellhost to cellhost only; it claims nothing of
// celld's peer_protocol). A forward is one POST to the owner's internal
// listener, at PathFetch or PathCall, whose body is a JSON Envelope. It
// carries these headers:
//
//	Cellhost-Peer:           "<protocol version>.<secret version>", "2.1"
//	Cellhost-Peer-Node:      the sender's node id
//	Cellhost-Peer-Time:      the sender's wall clock, Unix ms
//	Cellhost-Peer-Nonce:     32 lowercase hex digits, fresh per request
//	Cellhost-Peer-Signature: hex HMAC-SHA256(secret, requestSigningString)
//	Cellhost-Peer-Head:      hex HMAC-SHA256(secret, headSigningString)
//
// The head signature covers what the headers say (the path, the sender,
// the time, the nonce and the body's Content-Length): the receiver checks
// it, the clock and the nonce before it reads a byte of the body, so an
// unsigned sender makes it read nothing (protocol 2; issue 23.3: 8
// unsigned 130 MB POSTs took a node from 79 MB to 2.24 GB).
//
// The signature covers the path, the sender, the time, the nonce and the
// SHA-256 of the body. The receiver refuses a request whose time is more
// than the skew away from its own clock, or whose nonce it has seen within
// the skew window. Its answer (200 with a JSON Reply, or 401 with a reason
// when the request is refused) carries Cellhost-Peer-Signature over the
// request's nonce, the status and the answer's body, so that the sender
// accepts only an answer to its own request.
const (
	protocolVersion = 2

	PathFetch = "/cellhost-peer/v1/fetch"
	PathCall  = "/cellhost-peer/v1/call"
	PathPing  = "/cellhost-peer/v1/ping"
	// PathHTTP carries a client's HTTP request as it is (a WebSocket
	// upgrade, relayed byte for byte after a 101); its Envelope (the
	// object, and the request's original URL in Req.URL) travels base64
	// in the Cellhost-Peer-Envelope header and is what the signature's
	// body hash covers.
	PathHTTP = "/cellhost-peer/v1/http"

	hdrPeer      = "Cellhost-Peer"
	hdrNode      = "Cellhost-Peer-Node"
	hdrTime      = "Cellhost-Peer-Time"
	hdrNonce     = "Cellhost-Peer-Nonce"
	hdrSignature = "Cellhost-Peer-Signature"
	hdrEnvelope  = "Cellhost-Peer-Envelope"
	hdrHead      = "Cellhost-Peer-Head"

	// maxEnvelope bounds a peer body: a 100 MiB request or response body
	// in base64, and the rest of the envelope.
	maxEnvelope = 140 << 20
)

// peerHeader is the value of the Cellhost-Peer header for secret s.
func peerHeader(s Secret) string {
	return strconv.Itoa(protocolVersion) + "." + strconv.Itoa(s.Version)
}

func requestSigningString(path, node, timeMS, nonce string, body []byte) []byte {
	sum := sha256.Sum256(body)
	return []byte("cellhost-peer request\n" + path + "\n" + node + "\n" + timeMS + "\n" + nonce + "\n" + hex.EncodeToString(sum[:]))
}

func headSigningString(path, node, timeMS, nonce string, length int64) []byte {
	return []byte("cellhost-peer head\n" + path + "\n" + node + "\n" + timeMS + "\n" + nonce + "\n" + strconv.FormatInt(length, 10))
}

func replySigningString(nonce string, status int, body []byte) []byte {
	sum := sha256.Sum256(body)
	return []byte("cellhost-peer reply\n" + nonce + "\n" + strconv.Itoa(status) + "\n" + hex.EncodeToString(sum[:]))
}

func (s Secret) sign(msg []byte) string {
	m := hmac.New(sha256.New, s.Key)
	m.Write(msg)
	return hex.EncodeToString(m.Sum(nil))
}

// verify reports whether sig (hex) is s's signature of msg, in constant
// time.
func (s Secret) verify(msg []byte, sig string) bool {
	got, err := hex.DecodeString(sig)
	if err != nil {
		return false
	}
	m := hmac.New(sha256.New, s.Key)
	m.Write(msg)
	return hmac.Equal(got, m.Sum(nil))
}

// Envelope is a forwarded request: a fetch (Req) or an RPC call (Method,
// Args, Get) for the object Class/ID, reached by Name ("" by id).
type Envelope struct {
	Class  string       `json:"class"`
	ID     string       `json:"id"`
	Name   string       `json:"name,omitempty"`
	Req    *WireRequest `json:"req,omitempty"`
	Method string       `json:"method,omitempty"`
	Args   []byte       `json:"args,omitempty"`
	Get    bool         `json:"get,omitempty"`
}

// WireRequest is httpmsg.Request on the wire.
type WireRequest struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header [][2]string `json:"header"`
	Body   []byte      `json:"body,omitempty"`
}

// Reply is the owner's answer: a response (fetch), a result (call), or an
// error.
type Reply struct {
	Status     int         `json:"status,omitempty"`
	StatusText string      `json:"status_text,omitempty"`
	Header     [][2]string `json:"header,omitempty"`
	Body       []byte      `json:"body,omitempty"`
	Result     []byte      `json:"result,omitempty"`
	Error      *WireError  `json:"error,omitempty"`
}

// Error kinds of a Reply.
const (
	// ErrKindNotOwner: the node does not own the object and did not run
	// the request; Owner, Addr and Epoch name the owner it found.
	ErrKindNotOwner = "not_owner"
	// ErrKindLostRecord: the object's own.json was lost (Epoch is the
	// newest LTX epoch).
	ErrKindLostRecord = "lost_record"
	// ErrKindScript: the object threw (Name, Message, Stack).
	ErrKindScript = "script"
	// ErrKindUnavailable: the owner could not serve the request, and the
	// client is to be answered 503 with Message: its lease lapsed (it
	// did not run the request), or the request ran but may or may not
	// have been applied (a commit that could not be made durable).
	ErrKindUnavailable = "unavailable"
	// ErrKindOther: any other failure, described by Message.
	ErrKindOther = "other"
)

// WireError is an error in a Reply.
type WireError struct {
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
	Name    string `json:"name,omitempty"`
	Stack   string `json:"stack,omitempty"`
	Scope   string `json:"scope,omitempty"`
	Owner   string `json:"owner,omitempty"`
	Addr    string `json:"addr,omitempty"`
	Epoch   uint64 `json:"epoch,omitempty"`
	// ExpiresMS (not_owner) is the owner's lease expiry as the node read it.
	ExpiresMS uint64 `json:"expires_ms,omitempty"`
}

// DecodeEnvelope decodes and checks a forwarded request's body.
func DecodeEnvelope(body []byte, call bool) (*Envelope, error) {
	var env Envelope
	if err := decodeStrict(body, &env); err != nil {
		return nil, fmt.Errorf("decode peer request: %w", err)
	}
	switch {
	case env.Class == "" || env.ID == "":
		return nil, errors.New("decode peer request: no class or id")
	case call && (env.Method == "" || env.Req != nil):
		return nil, errors.New("decode peer request: a call needs a method and no request")
	case !call && (env.Req == nil || env.Method != "" || env.Args != nil || env.Get):
		return nil, errors.New("decode peer request: a fetch needs a request and no method")
	}
	return &env, nil
}

// DecodeReply decodes an owner's answer.
func DecodeReply(body []byte) (*Reply, error) {
	var r Reply
	if err := decodeStrict(body, &r); err != nil {
		return nil, fmt.Errorf("decode peer reply: %w", err)
	}
	if r.Error != nil {
		switch r.Error.Kind {
		case ErrKindNotOwner, ErrKindLostRecord, ErrKindScript, ErrKindUnavailable, ErrKindOther:
		default:
			return nil, fmt.Errorf("decode peer reply: unknown error kind %q", r.Error.Kind)
		}
	}
	return &r, nil
}

// decodeStrict decodes one JSON value into v; trailing data is an error.
// Members v does not know are skipped, so that a newer node may add fields
// during a rolling upgrade (docs/operations.md): a field an older node must
// not ignore comes with a new protocol or format version instead, which
// the older node refuses by name.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

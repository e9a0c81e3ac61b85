package fleet

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/ownership"
)

// DefaultSkew is how far apart two nodes' clocks may be for a peer request
// to be accepted, and how long its nonce is remembered.
const DefaultSkew = 30 * time.Second

// Local is what a Server needs of its node: the objects it may serve
// itself, never forwarding (a forwarded request is not forwarded again).
// *host.Host implements it. Called from the Server's request goroutines,
// concurrently.
type Local interface {
	// FetchHere delivers req to the object on this node, activating it
	// here if nobody live owns it. It returns
	// *ownership.CellOwnedElsewhereError when another live node owns it
	// (the request did not run).
	FetchHere(ctx context.Context, class, id, name string, req *httpmsg.Request) (*httpmsg.Response, error)
	// CallHere is FetchHere for an RPC call (or a property read when get).
	CallHere(ctx context.Context, class, id, name, method string, args []byte, get bool) ([]byte, error)
}

// Client forwards requests to the nodes that own objects, signed; a
// Placement uses it. Safe for concurrent use.
type Client struct {
	secret Secret
	node   string
	http   *http.Client
	now    func() time.Time
	self   string      // SetSelf
	tls    *tls.Config // SetTLS; nil: plain HTTP
}

// NewClient returns a Client that signs with secret as node.
func NewClient(secret Secret, node string) *Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 15 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     60 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	return &Client{secret: secret, node: node, http: &http.Client{Transport: tr}, now: time.Now}
}

// Close closes the Client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// ForwardError is a forward that failed without an answer from the owner.
type ForwardError struct {
	Addr  string
	Stage ForwardStage // StageNotSent or StageSent
	Err   error
}

func (e *ForwardError) Error() string {
	if e.Stage == StageNotSent {
		return fmt.Sprintf("The Durable Object owner is currently unreachable (%s: %v)", e.Addr, e.Err)
	}
	return fmt.Sprintf("the request may or may not have been applied: the Durable Object's owner at %s failed after the request was sent to it (%v)", e.Addr, e.Err)
}

func (e *ForwardError) Unwrap() error { return e.Err }

// Unsent reports whether the request may be sent again after a new look-up
// (MayResend): it never reached the owner.
func (e *ForwardError) Unsent() bool { return MayResend(e.Stage) }

// RemoteError is a failure the owner reported that is neither the
// object's own error nor a question of ownership.
type RemoteError struct {
	Addr    string
	Message string
}

func (e *RemoteError) Error() string { return e.Message }

// UnavailableError is the owner's answer that it could not serve the
// request (ErrKindUnavailable): the client gets 503 with Message, which
// says whether the request may have been applied.
type UnavailableError struct {
	Addr    string
	Message string
}

func (e *UnavailableError) Error() string { return e.Message }

// Unavailable marks the error as a 503 (host's httpError).
func (e *UnavailableError) Unavailable() bool { return true }

// Fetch forwards req for the object class/id to the node at addr. Errors:
// *ownership.CellOwnedElsewhereError (that node does not own it and did
// not run it: look up again), *ForwardError (Unsent tells whether it may
// be sent again), *httpmsg.ScriptError (the object threw),
// *ownership.LostRecordError, *RemoteError.
func (c *Client) Fetch(ctx context.Context, addr, class, id, name string, req *httpmsg.Request) (*httpmsg.Response, error) {
	env := &Envelope{Class: class, ID: id, Name: name, Req: &WireRequest{Method: req.Method, URL: req.URL, Header: req.Header, Body: req.Body}}
	r, err := c.do(ctx, addr, PathFetch, env)
	if err != nil {
		return nil, err
	}
	if r.Status < 100 || r.Status > 999 {
		return nil, &ForwardError{Addr: addr, Stage: StageSent, Err: fmt.Errorf("reply has status %d", r.Status)}
	}
	return &httpmsg.Response{Status: r.Status, StatusText: r.StatusText, Header: r.Header, Body: r.Body}, nil
}

// Call forwards an RPC call; see Fetch for the errors.
func (c *Client) Call(ctx context.Context, addr, class, id, name, method string, args []byte, get bool) ([]byte, error) {
	r, err := c.do(ctx, addr, PathCall, &Envelope{Class: class, ID: id, Name: name, Method: method, Args: args, Get: get})
	if err != nil {
		return nil, err
	}
	return r.Result, nil
}

// Ping checks the node at addr over the signed protocol and returns the
// node id it answers with. Errors: *ForwardError (no signed answer),
// *RemoteError (it refused the ping: another fleet secret, clock skew).
func (c *Client) Ping(ctx context.Context, addr string) (string, error) {
	p, err := c.PingStatus(ctx, addr)
	if err != nil {
		return "", err
	}
	return p.Node, nil
}

// PingStatus is Ping, returning the whole answer (the node's status when
// it sent one).
func (c *Client) PingStatus(ctx context.Context, addr string) (*Pong, error) {
	body, err := c.send(ctx, addr, PathPing, []byte("{}"))
	if err != nil {
		return nil, err
	}
	var p Pong
	if err := decodeStrict(body, &p); err != nil {
		return nil, &ForwardError{Addr: addr, Stage: StageSent, Err: fmt.Errorf("decode pong: %w", err)}
	}
	return &p, nil
}

// Pong is the answer to a ping: the node and, when it has them, its
// load and counters.
type Pong struct {
	Node   string      `json:"node"`
	Status *NodeStatus `json:"status,omitempty"`
}

// NodeStatus is a running node's load and counters, for cellhost
// diagnose. (The node record's "load" stays the unattractive constant of
// bucket protocol section 4, so that celld never hands cells to a
// cellhost node; the figures travel over the signed peer protocol.)
type NodeStatus struct {
	UptimeMS       int64     `json:"uptime_ms"`
	ResidentCells  int       `json:"resident_cells"`
	WebSockets     int       `json:"websockets"`
	Requests       int64     `json:"requests"`
	RequestsPerSec float64   `json:"requests_per_sec"` // over the last sampling interval
	Events         int64     `json:"events"`
	AlarmsFired    int64     `json:"alarms_fired"`
	Wake           WakeStats `json:"wake"`
}

func (c *Client) do(ctx context.Context, addr, path string, env *Envelope) (*Reply, error) {
	body, err := json.Marshal(env)
	if err != nil {
		return nil, &ForwardError{Addr: addr, Stage: StageNotSent, Err: err}
	}
	rbody, err := c.send(ctx, addr, path, body)
	if err != nil {
		return nil, err
	}
	r, err := DecodeReply(rbody)
	if err != nil {
		return nil, &ForwardError{Addr: addr, Stage: StageSent, Err: err}
	}
	if e := r.Error; e != nil {
		switch e.Kind {
		case ErrKindNotOwner:
			return nil, &ownership.CellOwnedElsewhereError{Scope: e.Scope, Owner: e.Owner, Addr: e.Addr, Epoch: e.Epoch, ExpiresMS: e.ExpiresMS}
		case ErrKindLostRecord:
			return nil, &ownership.LostRecordError{Scope: e.Scope, NewestEpoch: e.Epoch}
		case ErrKindScript:
			return nil, &httpmsg.ScriptError{Name: e.Name, Message: e.Message, Stack: e.Stack}
		case ErrKindUnavailable:
			return nil, &UnavailableError{Addr: addr, Message: e.Message}
		default:
			return nil, &RemoteError{Addr: addr, Message: e.Message}
		}
	}
	return r, nil
}

// send POSTs a signed body to path at addr and returns the verified body of
// a 200 answer.
func (c *Client) send(ctx context.Context, addr, path string, body []byte) ([]byte, error) {
	nonce := newNonce()
	ts := strconv.FormatInt(c.now().UnixMilli(), 10)
	hreq, err := http.NewRequest(http.MethodPost, c.scheme("http")+"://"+addr+path, bytes.NewReader(body))
	if err != nil {
		return nil, &ForwardError{Addr: addr, Stage: StageNotSent, Err: err}
	}
	h := hreq.Header
	h.Set("Content-Type", "application/json")
	h.Set(hdrPeer, peerHeader(c.secret))
	h.Set(hdrNode, c.node)
	h.Set(hdrTime, ts)
	h.Set(hdrNonce, nonce)
	h.Set(hdrSignature, c.secret.sign(requestSigningString(path, c.node, ts, nonce, body)))
	h.Set(hdrHead, c.secret.sign(headSigningString(path, c.node, ts, nonce, int64(len(body)))))

	var mu sync.Mutex
	wrote := false
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		mu.Lock()
		wrote = info.Err == nil
		mu.Unlock()
	}}
	hreq = hreq.WithContext(httptrace.WithClientTrace(ctx, trace))
	resp, err := c.http.Do(hreq)
	stage := func() ForwardStage {
		mu.Lock()
		defer mu.Unlock()
		if wrote {
			return StageSent
		}
		return StageNotSent
	}
	if err != nil {
		return nil, &ForwardError{Addr: addr, Stage: stage(), Err: err}
	}
	defer resp.Body.Close()
	rbody, err := io.ReadAll(io.LimitReader(resp.Body, maxEnvelope+1))
	if err != nil {
		return nil, &ForwardError{Addr: addr, Stage: StageSent, Err: fmt.Errorf("read reply: %w", err)}
	}
	if !c.secret.verify(replySigningString(nonce, resp.StatusCode, rbody), resp.Header.Get(hdrSignature)) {
		return nil, &ForwardError{Addr: addr, Stage: StageSent, Err: fmt.Errorf("reply (%d) is not signed with the fleet secret", resp.StatusCode)}
	}
	if resp.StatusCode != http.StatusOK {
		// The peer refused the request without running it.
		return nil, &RemoteError{Addr: addr, Message: fmt.Sprintf("the node at %s refused the forwarded request: %s", addr, bytes.TrimSpace(rbody))}
	}
	return rbody, nil
}

func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Server answers forwarded requests on the internal listener. It is an
// http.Handler; ServeHTTP is called concurrently.
type Server struct {
	node   string
	secret Secret
	local  Local
	skew   time.Duration
	now    func() time.Time
	log    *slog.Logger
	status func() *NodeStatus
	refuse func(string) bool

	// inflight bounds the peer requests with a body being served at once,
	// bodies the bytes of their bodies in memory.
	inflight chan struct{}
	bodies   *semaphore.Weighted

	mu     sync.Mutex
	nonces map[string]int64 // nonce -> the Unix ms after which it is forgotten; guarded by mu
	adds   int              // inserts since the last prune; guarded by mu
}

// maxPeerInFlight bounds the peer requests with a body served at once
// (past it: 503), peerBodyBudget the bytes of their bodies in memory
// (past it a request waits for others to end): three of the largest.
const (
	maxPeerInFlight = 1024
	peerBodyBudget  = 3 * maxEnvelope
)

// maxNonces bounds the replay cache; past it (after pruning) requests are
// refused until old nonces expire.
const maxNonces = 1 << 20

// ServerConfig configures a Server.
type ServerConfig struct {
	Node   string // this node's id, which a ping answers
	Secret Secret
	Local  Local
	Skew   time.Duration    // DefaultSkew when zero
	Now    func() time.Time // time.Now when nil
	Log    *slog.Logger     // refused requests; discards when nil
	// Status, if set, is the node's status a ping answers with.
	Status func() *NodeStatus
	// RefuseFrom, if set, reports whether a request from this remote
	// address must be refused before anything else (403): cmd refuses the
	// connections a script's fetch() opened (jsapi/web.IsSubrequest).
	RefuseFrom func(remoteAddr string) bool
}

// NewServer returns a Server.
func NewServer(cfg ServerConfig) *Server {
	if cfg.Skew <= 0 {
		cfg.Skew = DefaultSkew
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Server{node: cfg.Node, secret: cfg.Secret, local: cfg.Local, skew: cfg.Skew, now: cfg.Now, log: cfg.Log, status: cfg.Status, refuse: cfg.RefuseFrom, nonces: map[string]int64{},
		inflight: make(chan struct{}, maxPeerInFlight), bodies: semaphore.NewWeighted(peerBodyBudget)}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	nonce := r.Header.Get(hdrNonce)
	refuse := func(status int, msg string) {
		body := []byte(msg + "\n")
		w.Header().Set(hdrSignature, s.secret.sign(replySigningString(nonce, status, body)))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
	if s.refuse != nil && s.refuse(r.RemoteAddr) {
		http.Error(w, "a script cannot reach this node's internal listener", http.StatusForbidden)
		return
	}
	call, ping := false, false
	switch r.URL.Path {
	case PathFetch:
	case PathCall:
		call = true
	case PathPing:
		ping = true
	case PathHTTP:
		s.serveHTTPForward(w, r, refuse)
		return
	case PathWS:
		s.serveSocket(w, r, refuse)
		return
	default:
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	// The headers are authenticated before a byte of the body is read, and
	// the body is read within the bound on peer bodies in memory.
	if r.ContentLength > maxEnvelope {
		refuse(http.StatusRequestEntityTooLarge, "peer request too large")
		return
	}
	if err := s.authenticateHead(r); err != nil {
		s.log.Warn("refused a peer request", "from", r.RemoteAddr, "err", err)
		refuse(http.StatusUnauthorized, err.Error())
		return
	}
	select {
	case s.inflight <- struct{}{}:
		defer func() { <-s.inflight }()
	default:
		refuse(http.StatusServiceUnavailable, "too many peer requests in flight")
		return
	}
	if err := s.bodies.Acquire(r.Context(), r.ContentLength); err != nil {
		return // the sender went away
	}
	defer s.bodies.Release(r.ContentLength)
	body := make([]byte, r.ContentLength)
	if _, err := io.ReadFull(r.Body, body); err != nil {
		refuse(http.StatusBadRequest, "short peer request body")
		return
	}
	if err := s.authenticate(r, body); err != nil {
		s.log.Warn("refused a peer request", "from", r.RemoteAddr, "err", err)
		refuse(http.StatusUnauthorized, err.Error())
		return
	}
	if ping {
		p := Pong{Node: s.node}
		if s.status != nil {
			p.Status = s.status()
		}
		out, _ := json.Marshal(p)
		w.Header().Set(hdrSignature, s.secret.sign(replySigningString(nonce, http.StatusOK, out)))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
		return
	}
	env, err := DecodeEnvelope(body, call)
	if err != nil {
		refuse(http.StatusBadRequest, err.Error())
		return
	}
	var reply Reply
	if call {
		res, err := s.local.CallHere(r.Context(), env.Class, env.ID, env.Name, env.Method, env.Args, env.Get)
		reply.Result, reply.Error = res, wireError(err)
	} else {
		req := &httpmsg.Request{Method: env.Req.Method, URL: env.Req.URL, Header: env.Req.Header, Body: env.Req.Body}
		resp, err := s.local.FetchHere(r.Context(), env.Class, env.ID, env.Name, req)
		if err == nil {
			err = resp.BufferBody(maxEnvelope) // a streamed body goes back as bytes
		}
		switch {
		case err != nil:
			reply.Error = wireError(err)
		case resp.Socket != nil || resp.Status == http.StatusSwitchingProtocols:
			reply.Error = &WireError{Kind: ErrKindOther, Message: "a WebSocket cannot be accepted through another node yet; connect to the node that owns the Durable Object"}
		default:
			reply.Status, reply.StatusText, reply.Header, reply.Body = resp.Status, resp.StatusText, resp.Header, resp.Body
		}
	}
	out, err := json.Marshal(&reply)
	if err != nil {
		refuse(http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set(hdrSignature, s.secret.sign(replySigningString(nonce, http.StatusOK, out)))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
}

// authenticateHead checks, from the headers alone, a peer request's
// version, its head signature (over the path, sender, time, nonce and
// Content-Length), its clock and that its nonce is fresh: nothing is read
// of the body of a request that fails it.
func (s *Server) authenticateHead(r *http.Request) error {
	h := r.Header
	if got, want := h.Get(hdrPeer), peerHeader(s.secret); got != want {
		return peerVersionError(got, want) // which side is older, and what to do
	}
	node, ts, nonce := h.Get(hdrNode), h.Get(hdrTime), h.Get(hdrNonce)
	if len(nonce) != 32 || !isLowerHex(nonce) {
		return errors.New("bad nonce")
	}
	if r.ContentLength < 0 {
		return errors.New("a peer request needs a Content-Length")
	}
	if !s.secret.verify(headSigningString(r.URL.Path, node, ts, nonce, r.ContentLength), h.Get(hdrHead)) {
		return errors.New("bad signature (is the node on the same bucket?)")
	}
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("bad time")
	}
	now := s.now().UnixMilli()
	if !ClockOK(sent, now, s.skew) {
		return fmt.Errorf("clock skew: sent at %d, now %d (more than %v apart)", sent, now, s.skew)
	}
	s.mu.Lock()
	exp, seen := s.nonces[nonce]
	s.mu.Unlock()
	if seen && exp >= now {
		return errors.New("replayed request")
	}
	return nil
}

// authenticate checks a peer request's version, signature, clock and
// nonce, and remembers the nonce.
func (s *Server) authenticate(r *http.Request, body []byte) error {
	h := r.Header
	if got, want := h.Get(hdrPeer), peerHeader(s.secret); got != want {
		return peerVersionError(got, want)
	}
	node, ts, nonce := h.Get(hdrNode), h.Get(hdrTime), h.Get(hdrNonce)
	if len(nonce) != 32 || !isLowerHex(nonce) {
		return errors.New("bad nonce")
	}
	if !s.secret.verify(requestSigningString(r.URL.Path, node, ts, nonce, body), h.Get(hdrSignature)) {
		return errors.New("bad signature (is the node on the same bucket?)")
	}
	sent, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("bad time")
	}
	now := s.now().UnixMilli()
	if !ClockOK(sent, now, s.skew) {
		return fmt.Errorf("clock skew: sent at %d, now %d (more than %v apart)", sent, now, s.skew)
	}
	return s.remember(nonce, now)
}

// remember records nonce, failing if it was seen within the window.
func (s *Server) remember(nonce string, now int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if exp, ok := s.nonces[nonce]; ok && exp >= now {
		return errors.New("replayed request")
	}
	s.adds++
	if s.adds >= 4096 || len(s.nonces) >= maxNonces {
		s.adds = 0
		for k, exp := range s.nonces {
			if exp < now {
				delete(s.nonces, k)
			}
		}
		if len(s.nonces) >= maxNonces {
			return errors.New("too many requests in the replay window")
		}
	}
	// A request is accepted up to skew after it was sent (by the
	// receiver's clock, up to 2*skew after now); remember it that long.
	s.nonces[nonce] = now + 2*s.skew.Milliseconds()
	return nil
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// wireError turns a local error into a Reply error (nil for nil).
func wireError(err error) *WireError {
	if err == nil {
		return nil
	}
	var elsewhere *ownership.CellOwnedElsewhereError
	var lost *ownership.LostRecordError
	var se *httpmsg.ScriptError
	var unavailable interface{ Unavailable() bool }
	switch {
	case errors.As(err, &elsewhere):
		return &WireError{Kind: ErrKindNotOwner, Message: elsewhere.Error(), Scope: elsewhere.Scope, Owner: elsewhere.Owner, Addr: elsewhere.Addr, Epoch: elsewhere.Epoch, ExpiresMS: elsewhere.ExpiresMS}
	case errors.As(err, &unavailable) && unavailable.Unavailable(), errors.Is(err, ownership.ErrFenced):
		return &WireError{Kind: ErrKindUnavailable, Message: err.Error()}
	case errors.As(err, &lost):
		return &WireError{Kind: ErrKindLostRecord, Message: lost.Error(), Scope: lost.Scope, Epoch: lost.NewestEpoch}
	case errors.As(err, &se):
		return &WireError{Kind: ErrKindScript, Name: se.Name, Message: se.Message, Stack: se.Stack}
	}
	return &WireError{Kind: ErrKindOther, Message: err.Error()}
}

package fleet

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cellhost/cellhost/internal/wsrelay"
)

// PathWS carries a WebSocket relayed message by message (internal/wsrelay):
// the edge node holds the client's connection and opens this WebSocket to
// the owner. The request is signed like PathHTTP (the wsrelay.Open travels
// base64 in Cellhost-Peer-Envelope and is what the body hash covers); the
// owner's 101 carries Cellhost-Peer-Signature over the request's nonce,
// status 101 and an empty body, and its first message is a wsrelay.Hello.
const PathWS = "/cellhost-peer/v1/ws"

// helloTimeout bounds the wait for the owner's Hello (the object's fetch
// runs before it).
const helloTimeout = 2 * time.Minute

// SocketLocal is what a Server needs of its node for PathWS. *host.Host
// implements it.
type SocketLocal interface {
	// ServeSocket serves a relay (already upgraded): it sends the Hello
	// and couples conn to the object, or closes it.
	ServeSocket(conn *websocket.Conn, open *wsrelay.Open)
}

// SetSelf records the address other nodes reach this node at (SelfAddr).
// Call it before the Client is used.
func (c *Client) SetSelf(addr string) { c.self = addr }

// SelfAddr is the address the edge asks when a relay's owner is gone (Placement).
func (c *Client) SelfAddr() string { return c.self }

// DialSocket opens a relay to the node at addr and returns it with the
// owner's Hello (the edge, edge.go). Errors: *ForwardError
// (Unsent: the node was not reached, nothing ran), *RemoteError (the node
// refused the request).
func (c *Client) DialSocket(ctx context.Context, addr string, open *wsrelay.Open) (*websocket.Conn, *wsrelay.Hello, error) {
	body, err := json.Marshal(open)
	if err != nil {
		return nil, nil, &ForwardError{Addr: addr, Stage: StageNotSent, Err: err}
	}
	nonce := newNonce()
	ts := strconv.FormatInt(c.now().UnixMilli(), 10)
	h := http.Header{}
	h.Set(hdrPeer, peerHeader(c.secret))
	h.Set(hdrNode, c.node)
	h.Set(hdrTime, ts)
	h.Set(hdrNonce, nonce)
	h.Set(hdrEnvelope, base64.StdEncoding.EncodeToString(body))
	h.Set(hdrSignature, c.secret.sign(requestSigningString(PathWS, c.node, ts, nonce, body)))
	d := websocket.Dialer{
		NetDialContext:   (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 15 * time.Second}).DialContext,
		HandshakeTimeout: 30 * time.Second,
		TLSClientConfig:  c.tlsConfig(),
	}
	conn, resp, err := d.DialContext(ctx, c.scheme("ws")+"://"+addr+PathWS, h)
	if err != nil {
		var oe *net.OpError
		if resp == nil && errors.As(err, &oe) && oe.Op == "dial" {
			return nil, nil, &ForwardError{Addr: addr, Stage: StageNotSent, Err: err}
		}
		if resp != nil {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
			if c.secret.verify(replySigningString(nonce, resp.StatusCode, b), resp.Header.Get(hdrSignature)) {
				return nil, nil, &RemoteError{Addr: addr, Message: fmt.Sprintf("the node at %s refused the relay: %s", addr, b)}
			}
		}
		return nil, nil, &ForwardError{Addr: addr, Stage: StageSent, Err: err}
	}
	if !c.secret.verify(replySigningString(nonce, http.StatusSwitchingProtocols, nil), resp.Header.Get(hdrSignature)) {
		conn.Close()
		return nil, nil, &ForwardError{Addr: addr, Stage: StageSent, Err: errors.New("the relay's 101 is not signed with the fleet secret")}
	}
	_ = conn.SetReadDeadline(time.Now().Add(helloTimeout))
	typ, msg, err := conn.ReadMessage()
	_ = conn.SetReadDeadline(time.Time{})
	if err == nil && typ != websocket.TextMessage {
		err = errors.New("the relay's first message is not text")
	}
	var hello *wsrelay.Hello
	if err == nil {
		hello, err = wsrelay.DecodeHello(msg)
	}
	if err != nil {
		conn.Close()
		return nil, nil, &ForwardError{Addr: addr, Stage: StageSent, Err: fmt.Errorf("relay hello: %w", err)}
	}
	return conn, hello, nil
}

var relayUpgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveSocket answers PathWS.
func (s *Server) serveSocket(w http.ResponseWriter, r *http.Request, refuse func(int, string)) {
	sl, ok := s.local.(SocketLocal)
	if !ok {
		refuse(http.StatusNotImplemented, "this node does not relay WebSockets")
		return
	}
	body, err := base64.StdEncoding.DecodeString(r.Header.Get(hdrEnvelope))
	if err != nil {
		refuse(http.StatusBadRequest, "bad envelope header")
		return
	}
	if err := s.authenticate(r, body); err != nil {
		s.log.Warn("refused a peer request", "from", r.RemoteAddr, "err", err)
		refuse(http.StatusUnauthorized, err.Error())
		return
	}
	open, err := wsrelay.DecodeOpen(body)
	if err != nil {
		refuse(http.StatusBadRequest, err.Error())
		return
	}
	hdr := http.Header{}
	hdr.Set(hdrSignature, s.secret.sign(replySigningString(r.Header.Get(hdrNonce), http.StatusSwitchingProtocols, nil)))
	conn, err := relayUpgrader.Upgrade(w, r, hdr)
	if err != nil {
		return // the upgrader answered
	}
	sl.ServeSocket(conn, open)
}

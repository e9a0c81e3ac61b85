package fleet

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
)

// HTTPLocal is the part of a node a Server needs for PathHTTP: the object
// answers the client's request r itself (a WebSocket upgrade: it switches
// protocols on w). *host.Host implements it. Called concurrently.
type HTTPLocal interface {
	ServeObjectHTTP(w http.ResponseWriter, r *http.Request, class, id, name string)
}

// ProxyHTTP relays r (a WebSocket upgrade from a client) to the node at
// addr for the object class/id, signed like every forward, and relays the
// answer to w; after a 101 the connection's bytes flow both ways until one
// side closes (a WebSocket as bytes: Placement relays message by message
// instead, DialSocket, and does not call it). A node that cannot be reached
// gets the client a 503; the upgrade is the first message, so nothing ran.
func (c *Client) ProxyHTTP(w http.ResponseWriter, r *http.Request, addr, class, id, name string) {
	env := &Envelope{Class: class, ID: id, Name: name, Req: &WireRequest{Method: r.Method, URL: "http://" + r.Host + r.RequestURI, Header: [][2]string{}}}
	body, err := json.Marshal(env)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	nonce := newNonce()
	ts := strconv.FormatInt(c.now().UnixMilli(), 10)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = &url.URL{Scheme: c.scheme("http"), Host: addr, Path: PathHTTP}
			pr.Out.Host = addr
			h := pr.Out.Header
			for k := range h {
				if strings.HasPrefix(strings.ToLower(k), "cellhost-peer") {
					delete(h, k) // a client cannot pass its own
				}
			}
			h.Set(hdrPeer, peerHeader(c.secret))
			h.Set(hdrNode, c.node)
			h.Set(hdrTime, ts)
			h.Set(hdrNonce, nonce)
			h.Set(hdrEnvelope, base64.StdEncoding.EncodeToString(body))
			h.Set(hdrSignature, c.secret.sign(requestSigningString(PathHTTP, c.node, ts, nonce, body)))
		},
		Transport: c.http.Transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			http.Error(w, fmt.Sprintf("The Durable Object owner is currently unreachable (%s: %v)", addr, err), http.StatusServiceUnavailable)
		},
	}
	rp.ServeHTTP(w, r)
}

// serveHTTPForward answers PathHTTP: it authenticates the request, gives
// it back its original URL and host, drops the peer headers and lets the
// object answer.
func (s *Server) serveHTTPForward(w http.ResponseWriter, r *http.Request, refuse func(int, string)) {
	hl, ok := s.local.(HTTPLocal)
	if !ok {
		refuse(http.StatusNotImplemented, "this node does not relay HTTP")
		return
	}
	// Only a WebSocket upgrade travels this way: it has no body, so the
	// signature (over the envelope) covers everything that reaches the
	// object before the switch.
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") || r.ContentLength != 0 || len(r.TransferEncoding) > 0 {
		refuse(http.StatusBadRequest, "only a WebSocket upgrade without a body is relayed")
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
	env, err := DecodeEnvelope(body, false)
	if err != nil {
		refuse(http.StatusBadRequest, err.Error())
		return
	}
	u, err := url.Parse(env.Req.URL)
	if err != nil || u.Host == "" {
		refuse(http.StatusBadRequest, "bad original URL")
		return
	}
	r2 := r.Clone(r.Context())
	r2.URL = &url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	r2.RequestURI = u.RequestURI()
	r2.Host = u.Host
	for k := range r2.Header {
		if strings.HasPrefix(strings.ToLower(k), "cellhost-peer") || strings.EqualFold(k, "X-Forwarded-For") {
			delete(r2.Header, k)
		}
	}
	hl.ServeObjectHTTP(w, r2, env.Class, env.ID, env.Name)
}

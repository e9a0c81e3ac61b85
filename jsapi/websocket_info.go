package jsapi

// WebSocketInfo describes one WebSocket an object accepted, for the dev
// inspector.
type WebSocketInfo struct {
	// Hibernatable: accepted with ctx.acceptWebSocket (else ws.accept()).
	Hibernatable bool
	Tags         []string
	// Attachment is serializeAttachment's bytes (clone format), nil if none.
	Attachment []byte
	// ReadyState is the WebSocket's readyState: 1 open, 2 closing, 3 closed.
	ReadyState int
}

// Info describes ws. On ws's home loop.
func (ws *WebSocket) Info() WebSocketInfo {
	return WebSocketInfo{Hibernatable: ws.mode == wsHibernatable, Tags: append([]string(nil), ws.tags...),
		Attachment: append([]byte(nil), ws.attachment...), ReadyState: ws.readyState()}
}

// Describe describes the sockets of s, in acceptance order. On the
// object's loop.
func (s *WebSocketSet) Describe() []WebSocketInfo {
	if s == nil {
		return nil
	}
	out := make([]WebSocketInfo, len(s.sockets))
	for i, ws := range s.sockets {
		out[i] = ws.Info()
	}
	return out
}

package jsapi

import (
	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/web"
)

// The Web platform (Request, Response, URL, ...) lives in jsapi/web, which
// knows nothing of Durable Objects. These names are the part of it host
// uses through jsapi.

type (
	// HTTPRequest is a request as Go sees it (web.HTTPRequest).
	HTTPRequest = web.HTTPRequest
	// HTTPResponse is a response as Go sees it (web.HTTPResponse).
	HTTPResponse = web.HTTPResponse
	// WebOptions configures InstallWeb (web.Options).
	WebOptions = web.Options
	// BodyLimitError ends a streamed body past its limit (web.BodyLimitError).
	BodyLimitError = web.BodyLimitError
	// BodyLength is a streamed body of known length (web.BodyLength).
	BodyLength = web.BodyLength
)

// InstallWeb installs the Web platform globals on a fresh runtime (see
// web.Install).
func InstallWeb(rt *goja.Runtime, o WebOptions) error { return web.Install(rt, o) }

// ExportResponse reads a JS Response into Go (see web.ExportResponse).
func ExportResponse(rt *goja.Runtime, v goja.Value) (*HTTPResponse, error) {
	return web.ExportResponse(rt, v)
}

// SocketOf returns the WebSocket a response carries, or nil (resp may be
// nil).
func SocketOf(resp *HTTPResponse) *WebSocket {
	if resp == nil {
		return nil
	}
	ws, _ := resp.Socket.(*WebSocket)
	return ws
}

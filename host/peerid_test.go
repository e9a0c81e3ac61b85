package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

// TestPeer_IDInvalidForNamespaceRefused: FetchHere and CallHere (what the
// internal listener runs for another node) refuse an id this namespace
// could not have made, and a name that does not give the id, with a clear
// error and without running the object. Before, any 64 hex digits (or any
// string) made a cell, and a name of another object reached ctx.id.name.
func TestPeer_IDInvalidForNamespaceRefused(t *testing.T) {
	h := newHostB(t, interruptJS, t.TempDir(), func(c *host.Config) { c.Shards = 1 })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	good := host.IDFromName("counter", "Counter", "a")
	for _, tc := range []struct{ id, name, want string }{
		{host.IDFromName("counter", "Plain", "a"), "", "Durable Object ID is not valid for this namespace."},
		{host.IDFromName("other-script", "Counter", "a"), "", "Durable Object ID is not valid for this namespace."},
		{"../../etc", "", "Invalid Durable Object ID: must be 64 hex digits"},
		{strings.ToUpper(good), "", "Invalid Durable Object ID: must be 64 hex digits"},
		{good, "b", "Durable Object ID does not match its name."},
	} {
		req := &jsapi.HTTPRequest{Method: "GET", URL: "http://x/"}
		_, err := h.FetchHere(context.Background(), "Counter", tc.id, tc.name, req)
		if err == nil || err.Error() != "TypeError: "+tc.want && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FetchHere(%q, %q): %v; want %q", tc.id, tc.name, err, tc.want)
		}
		_, err = h.CallHere(context.Background(), "Counter", tc.id, tc.name, "fetch", nil, false)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CallHere(%q, %q): %v; want %q", tc.id, tc.name, err, tc.want)
		}
	}
	resp, err := h.FetchHere(context.Background(), "Counter", good, "a", &jsapi.HTTPRequest{Method: "GET", URL: "http://x/"})
	if err != nil || resp.Status != 200 {
		t.Fatalf("a valid id: %v %v", resp, err)
	}
}

package host_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

// fakePlacement stands in for fleet.Placement: objects named "far" are
// answered by "their owner" (without running here), "huge" fails as a
// request that cannot be forwarded; every other request runs here.
type fakePlacement struct {
	mu      sync.Mutex
	fetches []string // class/id/name of each Fetch
	closed  int
}

type badRequest struct{}

func (badRequest) Error() string    { return "request body too large to forward" }
func (badRequest) BadRequest() bool { return true }

func (p *fakePlacement) Fetch(ctx context.Context, class, id, name string, req *jsapi.HTTPRequest, here func() (*jsapi.HTTPResponse, error)) (*jsapi.HTTPResponse, error) {
	p.mu.Lock()
	p.fetches = append(p.fetches, class+"/"+id+"/"+name)
	p.mu.Unlock()
	switch name {
	case "far":
		return &jsapi.HTTPResponse{Status: 200, Body: []byte("from the owner")}, nil
	case "huge":
		return nil, badRequest{}
	}
	return here()
}

func (p *fakePlacement) Call(ctx context.Context, class, id, name, method string, get bool, here func() ([]byte, error), wire func() ([]byte, error)) ([]byte, error) {
	return here()
}

func (p *fakePlacement) ServedElsewhere(class, id string) bool { return false }

func (p *fakePlacement) Upgrade(w http.ResponseWriter, r *http.Request, addr, class, id, name string, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error) {
	return nil, errors.New("unused")
}

func (p *fakePlacement) OpenSockets() int { return 3 }

func (p *fakePlacement) CloseSockets() {
	p.mu.Lock()
	p.closed++
	p.mu.Unlock()
}

// TestPlacement_HostRoutesThroughIt: with a Placement, a request for an
// object goes through its Fetch (which runs it here through the host's
// own look-up, or answers for another node), its errors map to answers
// (BadRequest: 400), its held sockets count in Stats, and Close closes
// them once.
func TestPlacement_HostRoutesThroughIt(t *testing.T) {
	p := &fakePlacement{}
	h := newHostB(t, counterJS, t.TempDir(), func(c *host.Config) { c.Placement = p })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	for _, tt := range []struct{ path, want string }{
		{"/do/Counter/alice", `{"n":1,"name":"alice"}`}, // run here
		{"/do/Counter/alice", `{"n":2,"name":"alice"}`},
		{"/do/Counter/far", "from the owner"}, // answered for another node
	} {
		if status, body := get(t, srv, tt.path); status != 200 || body != tt.want {
			t.Errorf("GET %s = %d %q, want 200 %q", tt.path, status, body, tt.want)
		}
	}
	if status, body := get(t, srv, "/do/Counter/huge"); status != 400 || body != "request body too large to forward\n" {
		t.Errorf("GET /do/Counter/huge = %d %q, want 400 with the Placement's text", status, body)
	}
	p.mu.Lock()
	got := append([]string(nil), p.fetches...)
	p.mu.Unlock()
	alice := "Counter/" + host.IDFromName("counter", "Counter", "alice") + "/alice"
	if len(got) != 4 || got[0] != alice || got[1] != alice {
		t.Errorf("Placement.Fetch calls = %q, want 4 starting with %q twice", got, alice)
	}
	if n := h.Stats().WebSockets; n != 3 {
		t.Errorf("Stats().WebSockets = %d, want the Placement's 3", n)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p.closed != 1 {
		t.Errorf("CloseSockets called %d times by Close, want 1", p.closed)
	}
}

package host_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/host"
)

// TestHandler_BodyLimit: a body over the limit is refused with 413 before
// it is read, and the object never sees the request.
func TestHandler_BodyLimit(t *testing.T) {
	h := newHost(t, counterJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	req := httptest.NewRequest("POST", "/do/Counter/big", strings.NewReader("x"))
	req.ContentLength = 100<<20 + 1
	rec := httptest.NewRecorder()
	h.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge || rec.Body.String() != "request body is larger than 100 MiB\n" {
		t.Errorf("over the limit: %d %q, want 413 and the limit", rec.Code, rec.Body.String())
	}
	rec = httptest.NewRecorder()
	h.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/do/Counter/big", nil))
	if rec.Code != 200 || counterValue(t, rec.Body.String()) != 1 {
		t.Errorf("the object after the refused request: %d %q, want its first increment", rec.Code, rec.Body.String())
	}
}

// TestHandler_RequestLog: Config.RequestLog sees every request once its
// answer was sent, with the status the client got.
func TestHandler_RequestLog(t *testing.T) {
	var mu sync.Mutex
	var seen []host.RequestInfo
	var log logBuffer
	h := newHostB(t, counterJS, t.TempDir(), func(c *host.Config) {
		c.Log = &log
		c.RequestLog = func(ri host.RequestInfo) {
			mu.Lock()
			seen = append(seen, ri)
			mu.Unlock()
		}
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	for _, path := range []string{"/do/Counter/a?x=1", "/?name=throw", "/do/Nope/a"} {
		h.Handler().ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
	}
	want := []struct {
		uri    string
		status int
		err    bool
	}{{"/do/Counter/a?x=1", 200, false}, {"/?name=throw", 500, true}, {"/do/Nope/a", 404, false}}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != len(want) {
		t.Fatalf("logged %d requests, want %d: %+v", len(seen), len(want), seen)
	}
	for i, w := range want {
		if s := seen[i]; s.Method != "GET" || s.URI != w.uri || s.Status != w.status || (s.Err != nil) != w.err {
			t.Errorf("request %d logged as %+v, want GET %s %d (error %v)", i, s, w.uri, w.status, w.err)
		}
	}
}

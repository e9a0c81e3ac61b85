package host

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
)

type stubRemote struct{}

func (stubRemote) Fetch(context.Context, string, string, string, string, *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error) {
	return nil, errors.New("unused")
}

func (stubRemote) Call(context.Context, string, string, string, string, string, []byte, bool) ([]byte, error) {
	return nil, errors.New("unused")
}

func (stubRemote) ProxyHTTP(http.ResponseWriter, *http.Request, string, string, string, string) {}

type unsentErr struct{ unsent bool }

func (e unsentErr) Error() string { return fmt.Sprintf("forward failed (unsent %v)", e.unsent) }
func (e unsentErr) Unsent() bool  { return e.unsent }

func elsewhere(addr string) error {
	return &ownership.CellOwnedElsewhereError{Scope: "C:x", Owner: "node_" + addr, Addr: addr}
}

// TestRouted scripts the local attempts (here) and the forwards (there) of
// one request and checks which were made and what the caller gets: a
// forward that failed after it was sent is never sent again.
func TestRouted(t *testing.T) {
	tests := []struct {
		name   string
		cached string  // owner cache entry before the request
		here   []error // results of the local attempts, in order
		there  []error // results of the forwards, in order
		want   string  // the calls made: h = here, t<addr> = there
		result string  // "ok" or a substring of the error
	}{
		{"Local", "", []error{nil}, nil, "h", "ok"},
		{"LocalError", "", []error{errors.New("boom")}, nil, "h", "boom"},
		{"Forwarded", "", []error{elsewhere("b")}, []error{nil}, "h tb", "ok"},
		{"ObjectThrew", "", []error{elsewhere("b")}, []error{&jsapi.ScriptError{Name: "Error", Message: "js"}}, "h tb", "js"},
		{"SentThenFailed", "", []error{elsewhere("b")}, []error{unsentErr{false}}, "h tb", "unsent false"},
		{"NotSentLookAgainTakeHere", "", []error{elsewhere("b"), nil}, []error{unsentErr{true}}, "h tb h", "ok"},
		{"NotOwnerLookAgain", "", []error{elsewhere("b"), elsewhere("c")}, []error{elsewhere("c"), nil}, "h tb h tc", "ok"},
		{"Unreachable", "", []error{elsewhere("b"), elsewhere("b"), elsewhere("b")}, []error{unsentErr{true}, unsentErr{true}, unsentErr{true}}, "h tb h tb h tb", "unsent true"},
		{"Cached", "b", nil, []error{nil}, "tb", "ok"},
		{"CachedStale", "b", []error{nil}, []error{unsentErr{true}}, "tb h", "ok"},
		{"CachedSentThenFailed", "b", nil, []error{unsentErr{false}}, "tb", "unsent false"},
		{"CachedNotOwner", "b", []error{elsewhere("c")}, []error{elsewhere("c"), nil}, "tb h tc", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &Host{cfg: Config{Remote: stubRemote{}}}
			var owners ownerCache
			if tt.cached != "" {
				owners.put("C:x", tt.cached, time.Now())
			}
			var calls []string
			here := func() (string, error) {
				calls = append(calls, "h")
				if len(tt.here) == 0 {
					t.Fatal("unexpected local attempt")
				}
				err := tt.here[0]
				tt.here = tt.here[1:]
				return "local", err
			}
			there := func(addr string) (string, error) {
				calls = append(calls, "t"+addr)
				if len(tt.there) == 0 {
					t.Fatal("unexpected forward")
				}
				err := tt.there[0]
				tt.there = tt.there[1:]
				return "remote", err
			}
			_, err := routed(h, &owners, "C:x", here, there)
			if got := strings.Join(calls, " "); got != tt.want {
				t.Errorf("calls = %q, want %q", got, tt.want)
			}
			switch {
			case tt.result == "ok" && err != nil:
				t.Errorf("err = %v, want nil", err)
			case tt.result != "ok" && (err == nil || !strings.Contains(err.Error(), tt.result)):
				t.Errorf("err = %v, want %q", err, tt.result)
			}
		})
	}
}

func TestRouted_NoRemote(t *testing.T) {
	h := &Host{}
	var owners ownerCache
	_, err := routed(h, &owners, "C:x", func() (int, error) { return 0, elsewhere("b") }, func(string) (int, error) {
		t.Fatal("forwarded without a Remote")
		return 0, nil
	})
	if !errors.As(err, new(*ownership.CellOwnedElsewhereError)) {
		t.Errorf("err = %v, want CellOwnedElsewhereError", err)
	}
}

func TestOwnerCache_Expires(t *testing.T) {
	var c ownerCache
	now := time.Unix(1000, 0)
	c.put("s", "a:1", now)
	if addr, ok := c.get("s", now.Add(ownerCacheTTL-time.Nanosecond)); !ok || addr != "a:1" {
		t.Errorf("get before the TTL = %q, %v", addr, ok)
	}
	if _, ok := c.get("s", now.Add(ownerCacheTTL)); ok {
		t.Error("get at the TTL found the entry")
	}
	c.forget("s", "b:1")
	if _, ok := c.get("s", now); !ok {
		t.Error("forget of another address dropped the entry")
	}
	c.forget("s", "a:1")
	if _, ok := c.get("s", now); ok {
		t.Error("forget kept the entry")
	}
}

// TestRouted_CacheOnlyAnswers: a forward that got no answer does not make
// its target the cached owner.
func TestRouted_CacheOnlyAnswers(t *testing.T) {
	h := &Host{cfg: Config{Remote: stubRemote{}}}
	var owners ownerCache
	_, _ = routed(h, &owners, "C:x", func() (int, error) { return 0, elsewhere("b") }, func(string) (int, error) { return 0, unsentErr{false} })
	if _, ok := owners.get("C:x", time.Now()); ok {
		t.Error("a failed forward was cached")
	}
	_, _ = routed(h, &owners, "C:x", func() (int, error) { return 0, elsewhere("b") }, func(string) (int, error) { return 0, nil })
	if addr, ok := owners.get("C:x", time.Now()); !ok || addr != "b" {
		t.Errorf("an answered forward was not cached: %q %v", addr, ok)
	}
}

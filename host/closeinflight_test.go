package host_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

// closeInFlightJS has requests that never settle: the worker's own and an
// object's (a promise nobody resolves, a timer the closed loop never
// fires). Each logs once it runs, so the test knows it is in flight.
const closeInFlightJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch() {
    console.log("object running");
    await new Promise((r) => setTimeout(r, 3600000));
    return new Response("late");
  }
}
export class Plain {}
export default {
  async fetch(req, env) {
    if (new URL(req.url).pathname === "/object") return env.COUNTER.getByName("a").fetch(req);
    console.log("worker running");
    await new Promise(() => {});
  },
};
`

// TestClose_FailsRequestsInFlight: a request still running when its host
// closes (what a cellhost dev reload does to the old host) is answered
// 503 with the reason, instead of waiting until the client gives up:
// before, such requests got no answer at all until the process exited
// (the 120 s "reload hang" of issue 27 was a browser waiting on one).
func TestClose_FailsRequestsInFlight(t *testing.T) {
	running := make(chan string, 4)
	h := newHostB(t, closeInFlightJS, t.TempDir(), func(c *host.Config) {
		c.Console = func(scope, level, line string) { running <- line }
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	type answer struct {
		code int
		body string
		err  error
	}
	get := func(path string) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			resp, err := http.Get(srv.URL + path)
			if err != nil {
				ch <- answer{err: err}
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			ch <- answer{resp.StatusCode, string(b), err}
		}()
		return ch
	}
	worker, object := get("/"), get("/object")
	seen := map[string]bool{}
	for len(seen) < 2 {
		seen[<-running] = true
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]<-chan answer{"worker": worker, "object": object} {
		select {
		case a := <-ch:
			if a.err != nil || a.code != 503 || !strings.Contains(a.body, "send it again") {
				t.Errorf("%s request after Close: %d %q %v, want 503 with the reason", name, a.code, a.body, a.err)
			}
		case <-time.After(time.Minute): // a guard against the hang, not a synchronisation
			t.Errorf("%s request still unanswered a minute after Close returned", name)
		}
	}
}

package host_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

const alarmFailJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(req) {
    const u = new URL(req.url);
    if (u.pathname.endsWith("/arm")) {
      await this.ctx.storage.setAlarm(Date.now() + 1000);
      return new Response("armed");
    }
    if (u.pathname.endsWith("/release")) {
      if (this.release) { this.release(); this.release = null; return new Response("released"); }
      return new Response("nothing to release");
    }
    return Response.json({
      attempts: (await this.ctx.storage.get("attempts")) ?? 0,
      log: (await this.ctx.storage.get("log")) ?? [],
      alarm: await this.ctx.storage.getAlarm(),
    });
  }
  async alarm(info) {
    const n = ((await this.ctx.storage.get("attempts")) ?? 0) + 1;
    await this.ctx.storage.put("attempts", n);
    const log = (await this.ctx.storage.get("log")) ?? [];
    log.push({ retryCount: info.retryCount, isRetry: info.isRetry, alarmDuringRun: await this.ctx.storage.getAlarm() });
    await this.ctx.storage.put("log", log);
    if (n === 1) await new Promise((r) => { this.release = r; }); // held until /release
    throw new Error("alarm fails, attempt " + n);
  }
}
export class Plain {}
export default { fetch(req, env) { return env.COUNTER.get(env.COUNTER.idFromName("a")).fetch(req); } };
`

type alarmState struct {
	Attempts int `json:"attempts"`
	Log      []struct {
		RetryCount     int  `json:"retryCount"`
		IsRetry        bool `json:"isRetry"`
		AlarmDuringRun any  `json:"alarmDuringRun"`
	} `json:"log"`
	Alarm any `json:"alarm"`
}

// TestAlarm_FailurePolicy: an alarm() that always throws is tried seven
// times (the first attempt and six retries, as Cloudflare documents),
// 2, 4, 8, 16, 32 and 64 s after each failure, then dropped (getAlarm()
// null, no eighth attempt); the writes of every failed attempt are kept;
// retryCount/isRetry count the retries; getAlarm() is null while alarm()
// runs; and an attempt still running when the next would be due is the
// only one (no second attempt starts until it ends). The host's clock is
// moved by the test.
func TestAlarm_FailurePolicy(t *testing.T) {
	clock := newManualClock()
	h := newHostB(t, alarmFailJS, t.TempDir(), func(c *host.Config) { c.Clock = clock })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	state := func() alarmState {
		t.Helper()
		code, body := get(t, srv, "/state")
		var s alarmState
		if code != 200 || json.Unmarshal([]byte(body), &s) != nil {
			t.Fatalf("state: %d %s", code, body)
		}
		return s
	}
	// waitAttempts waits until the object has recorded n attempts (the
	// alarm runs on the object's loop after the clock fired its timer).
	waitAttempts := func(n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for state().Attempts < n {
			if time.Now().After(deadline) {
				t.Fatalf("attempt %d did not run: %+v", n, state())
			}
			time.Sleep(5 * time.Millisecond) // polling the object's state after the clock moved
		}
	}
	if code, body := get(t, srv, "/arm"); code != 200 || body != "armed" {
		t.Fatalf("arm: %d %s", code, body)
	}
	clock.Advance(time.Second)
	waitAttempts(1)
	// Attempt 1 is held: however far the clock moves, no second attempt.
	clock.Advance(10 * time.Minute)
	if s := state(); s.Attempts != 1 {
		t.Fatalf("a second attempt started while the first ran: %+v", s)
	}
	if code, body := get(t, srv, "/release"); code != 200 || body != "released" {
		t.Fatalf("release: %d %s", code, body)
	}
	// Attempt 1 failed; the retries follow, each after its own delay.
	for i, delay := range []time.Duration{2, 4, 8, 16, 32, 64} {
		delay *= time.Second
		clock.Advance(delay - 250*time.Millisecond)
		if s := state(); s.Attempts != i+1 {
			t.Fatalf("retry %d ran before its %v delay: %+v", i+1, delay, s)
		}
		clock.Advance(250 * time.Millisecond)
		waitAttempts(i + 2)
	}
	clock.Advance(10 * time.Minute)
	s := state()
	if s.Attempts != 7 {
		t.Errorf("attempts = %d, want 7 (1 + 6 retries), then dropped", s.Attempts)
	}
	if s.Alarm != nil {
		t.Errorf("getAlarm() = %v after the last failure, want null (dropped)", s.Alarm)
	}
	if len(s.Log) != 7 {
		t.Fatalf("the failed attempts' writes: %d log entries, want 7 (kept)", len(s.Log))
	}
	for i, e := range s.Log {
		if e.RetryCount != i || e.IsRetry != (i > 0) {
			t.Errorf("attempt %d: retryCount %d isRetry %v, want %d %v", i+1, e.RetryCount, e.IsRetry, i, i > 0)
		}
		if e.AlarmDuringRun != nil {
			t.Errorf("attempt %d: getAlarm() = %v during alarm(), want null", i+1, e.AlarmDuringRun)
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

const cfConfig = `{"name": "cf", "main": "index.js", "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [{"name": "O", "class_name": "O"}]},
  "migrations": [{"tag": "v1", "new_sqlite_classes": ["O"]}]}`

// The worker answers with its request.cf; /obj passes the request on to an
// object (stub.fetch(request)) and /new with a new Request (no cf).
const cfModule = `import { DurableObject } from "cloudflare:workers";
export class O extends DurableObject {
  fetch(req) { return Response.json({ where: "object", cf: req.cf ?? null }); }
}
export default {
  fetch(req, env) {
    const p = new URL(req.url).pathname;
    if (p === "/obj") return env.O.getByName("a").fetch(req);
    if (p === "/new") return env.O.getByName("a").fetch("http://x/");
    return Response.json({ where: "worker", cf: req.cf ?? null });
  },
};`

type cfReply struct {
	Where string         `json:"where"`
	CF    map[string]any `json:"cf"`
}

func getCF(t *testing.T, p *devProc, path string) cfReply {
	t.Helper()
	code, body, _ := p.get(t, path)
	if code != 200 {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	var r cfReply
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("GET %s: %v: %s", path, err, body)
	}
	return r
}

// request.cf is wrangler dev's offline placeholder in the worker, in an
// object the request is passed on to and on /do/ routes; --cf and
// CLOUDFLARE_CF_FETCH_PATH lay keys over it.
func TestDev_RequestCF(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	dir := writeProject(t, map[string]string{"wrangler.jsonc": cfConfig, "index.js": cfModule})
	var want map[string]any
	if err := json.Unmarshal(cfPlaceholder, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != 22 { // miniflare's 23 keys less hostMetadata, undefined, which JSON drops
		t.Fatalf("placeholder has %d keys", len(want))
	}
	t.Run("placeholder", func(t *testing.T) {
		p := runDevProc(t, dir, nil, "--port", "0", "--state", t.TempDir())
		for _, path := range []string{"/", "/obj", "/do/O/b"} {
			r := getCF(t, p, path)
			if len(r.CF) != len(want) || r.CF["country"] != "US" || r.CF["city"] != "Austin" || r.CF["colo"] != "DFW" || r.CF["timezone"] != "America/Chicago" {
				t.Errorf("%s: cf = %v, want the placeholder", path, r.CF)
			}
			if b, ok := r.CF["botManagement"].(map[string]any); !ok || b["score"] != float64(99) {
				t.Errorf("%s: cf.botManagement = %v", path, r.CF["botManagement"])
			}
		}
		if r := getCF(t, p, "/new"); r.CF != nil {
			t.Errorf("a new Request carries no cf, got %v", r.CF)
		}
	})
	t.Run("flag", func(t *testing.T) {
		p := runDevProc(t, dir, nil, "--port", "0", "--state", t.TempDir(), "--cf", `{"country":"DE","city":"Berlin","extra":{"a":1}}`)
		for _, path := range []string{"/", "/obj"} {
			r := getCF(t, p, path)
			if r.CF["country"] != "DE" || r.CF["city"] != "Berlin" || r.CF["colo"] != "DFW" || len(r.CF) != len(want)+1 {
				t.Errorf("%s: cf = %v", path, r.CF)
			}
		}
	})
	t.Run("env file", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "cf.json")
		if err := os.WriteFile(f, []byte(`{"colo":"FRA"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		p := runDevProc(t, dir, []string{"CLOUDFLARE_CF_FETCH_PATH=" + f}, "--port", "0", "--state", t.TempDir())
		if r := getCF(t, p, "/"); r.CF["colo"] != "FRA" || r.CF["country"] != "US" {
			t.Errorf("cf = %v", r.CF)
		}
	})
	t.Run("bad", func(t *testing.T) {
		p := startDevProc(t, dir, nil, "--port", "0", "--state", t.TempDir(), "--cf", "[1]")
		if code := p.exited(t); code == 0 {
			t.Fatal("exit 0 with a bad --cf")
		}
		if !p.out.waitFor(`cellhost: --cf: request.cf must be a JSON object`, 0) {
			t.Errorf("output:\n%s", p.out)
		}
	})
}

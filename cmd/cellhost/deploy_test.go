package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
)

// rpcProject is a worker whose default fetch calls an RPC method of a
// Durable Object through a stub; version is part of every answer.
func rpcProject(t *testing.T, version string) string {
	return writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "acc", "main": "index.js", "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [{"name": "ACC", "class_name": "Acc"}]}}`,
		"index.js": `import { DurableObject } from "cloudflare:workers";
export class Acc extends DurableObject {
  add(k) {
    const n = (this.ctx.storage.kv.get("n") ?? 0) + k;
    this.ctx.storage.kv.put("n", n);
    return { n, version: "` + version + `" };
  }
}
export default {
  async fetch(request, env) {
    const name = new URL(request.url).searchParams.get("name") ?? "x";
    const r = await env.ACC.getByName(name).add(1);
    return new Response(r.version + " " + r.n);
  },
};`,
	})
}

func getText(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestFleet_DeployAndRPC deploys an application to a bucket, runs two nodes
// without a project (they run the deployment), reaches one object by RPC
// through both (the non-owner forwards the call), then deploys a new
// version: both nodes switch to it without a restart, and the object keeps
// its state.
func TestFleet_DeployAndRPC(t *testing.T) {
	parallel(t) // beside the other waiting process tests (see TestCrash_AcknowledgedWritesSurvive)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir := t.TempDir()
		var stdout, stderr bytes.Buffer
		if code := run([]string{"deploy", rpcProject(t, "v1"), "--bucket", bucket}, &stdout, &stderr); code != 0 {
			t.Fatalf("deploy: %s", stderr.String())
		}
		a := startServe(t, bin, "--bucket", bucket, "--state", filepath.Join(dir, "a"), "--deploy-poll", "200ms")
		b := startServe(t, bin, "--bucket", bucket, "--state", filepath.Join(dir, "b"), "--deploy-poll", "200ms")
		for i, n := range []*serveNode{a, b, a, b} {
			status, body := getText(t, n.base+"/?name=r")
			if want := "v1 " + string(rune('1'+i)); status != 200 || body != want {
				t.Fatalf("request %d via %s: %d %q, want %q\n%s", i, n.id, status, body, want, n.logs)
			}
		}
		stdout.Reset()
		if code := run([]string{"deploy", rpcProject(t, "v2"), "--bucket", bucket}, &stdout, &stderr); code != 0 {
			t.Fatalf("deploy: %s", stderr.String())
		}
		count := 4
		for _, n := range []*serveNode{a, b} {
			deadline := time.Now().Add(30 * time.Second)
			for {
				status, body := getText(t, n.base+"/?name=r")
				if status != 200 {
					t.Fatalf("via %s during the switch: %d %q", n.id, status, body)
				}
				count++
				version, got, _ := strings.Cut(body, " ")
				if got != strconv.Itoa(count) {
					t.Fatalf("via %s: %q, want count %d (state kept across the deploy)", n.id, body, count)
				}
				if version == "v2" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s still runs %q 30 s after the deploy\n%s", n.id, body, n.logs)
				}
				time.Sleep(50 * time.Millisecond) // polling for the switch
			}
		}
		store := openBucket(t, bucket)
		page, err := store.List(context.Background(), bucketkey.DeploymentsPrefix, "", 0)
		if err != nil || len(page.Objects) != 2 {
			t.Fatalf("deployments in the bucket: %v %v", page.Objects, err)
		}
		if page, _ := store.List(context.Background(), "deploy/", "", 0); len(page.Objects) != 0 {
			t.Errorf("cellhost wrote under celld's deploy/: %v", page.Objects)
		}
	})
}

func TestServe_BadBucket(t *testing.T) {
	dir := writeProject(t, map[string]string{"wrangler.jsonc": okConfig, "index.js": okModule})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"Missing", []string{"serve", dir, "--listen", "127.0.0.1:0"}, `required flag(s) "bucket" not set`},
		{"UnknownScheme", []string{"serve", dir, "--listen", "127.0.0.1:0", "--bucket", "nope://x"}, "nope"},
		{"ProbeFault", []string{"serve", dir, "--listen", "127.0.0.1:0", "--bucket", "faultydiag://x", "--state", t.TempDir()}, "the object store is at fault: it applied a conditional write it must reject"},
		{"NoDeployment", []string{"serve", "--listen", "127.0.0.1:0", "--bucket", "mem://empty", "--state", t.TempDir()}, "the bucket holds no deployment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code == 0 {
				t.Fatal("exit code 0")
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.want)
			}
		})
	}
}

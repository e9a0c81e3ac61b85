package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const fleetRPCWorker = `
import { DurableObject, RpcTarget } from "cloudflare:workers";
class Box extends RpcTarget {
  constructor(v) { super(); this.v = v; }
  get() { return this.v; }
}
export class Obj extends DurableObject {
  hello(x) { return "hello " + x; }
  async use(box) { return await box.get(); }
  async call(f) { return await f(); }
  make() { return new Box(7); }
  stubOf(name) { return this.env.OBJ.getByName(name); }
}
const show = async (f) => { try { return await f(); } catch (e) { return e.name + ": " + e.message; } };
export default {
  async fetch(req, env) {
    const stub = env.OBJ.getByName(new URL(req.url).searchParams.get("name"));
    return Response.json([
      await show(() => stub.hello("there")),
      await show(() => stub.use(new Box(1))),
      await show(() => stub.call(() => 2)),
      await show(async () => (await stub.make()).get()),
      await show(async () => (await stub.stubOf("other")).hello("via stub")),
    ]);
  },
};
`

// TestFleet_RPCCapabilitiesAcrossNodes runs two nodes on one bucket: an
// RPC from a worker on one node to an object owned by the other carries
// values and Durable Object stubs, and refuses RpcTarget and function
// references (their ids mean something in one process only) with a clear
// error instead of reaching an unrelated target.
func TestFleet_RPCCapabilitiesAcrossNodes(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir, project := t.TempDir(), t.TempDir()
		for name, body := range map[string]string{
			"wrangler.jsonc": `{"name": "rpcx", "main": "index.js", "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [{"name": "OBJ", "class_name": "Obj"}]},
  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Obj"]}]}`,
			"index.js": fleetRPCWorker,
		} {
			if err := os.WriteFile(filepath.Join(project, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var nodes []*serveNode
		for i := range 2 {
			nodes = append(nodes, startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, fmt.Sprint("n", i))))
		}
		client := &http.Client{Timeout: 30 * time.Second}
		get := func(n *serveNode, name string) string {
			t.Helper()
			resp, err := client.Get(n.base + "/?name=" + name)
			if err != nil {
				t.Fatalf("GET: %v\nlogs:\n%s", err, n.logs)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 {
				t.Fatalf("GET: %d %s\nlogs:\n%s", resp.StatusCode, b, n.logs)
			}
			return string(b)
		}
		local := `["hello there",1,2,7,"hello via stub"]`
		if got := get(nodes[0], "x"); got != local {
			t.Fatalf("on the owner's node: %s, want %s", got, local)
		}
		refused := "DataCloneError: Could not send an RPC stub (an RpcTarget, a function or an RpcStub of one) to a Durable Object on another cellhost node: only Durable Object stubs and serializable values cross nodes."
		remote := fmt.Sprintf(`["hello there",%q,%q,%q,"hello via stub"]`, refused, refused, refused)
		if got := get(nodes[1], "x"); got != remote {
			t.Fatalf("from the other node: %s\nwant %s", got, remote)
		}
	})
}

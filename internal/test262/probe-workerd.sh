#!/usr/bin/env bash
# Which test262 feature flags does workerd ship? Runs the npm workerd on one
# worker that probes each feature the runner decides about (skippedFeatures
# in test262.go: a feature workerd ships is counted, one it lacks is
# skipped), and writes testdata/workerd-features.tsv: the workerd version,
# then "feature<TAB>shipped|absent" lines. TestSkippedFeaturesMatchWorkerd
# holds the runner's list to that file.
#
#   bash internal/test262/probe-workerd.sh
#
# workerd: $CELLHOST_WORKERD, else .cache/anchor/node_modules/workerd/bin/workerd
# (npm workerd; copy /work/main/.cache/anchor or `npm i workerd` there).
# Syntax-only proposals (decorators, import-defer, source phase imports,
# import text/bytes) cannot be probed by one worker that must load: they
# are listed in test262.go with their reason and not here.
set -euo pipefail
cd "$(dirname "$0")/../.."
wd=${CELLHOST_WORKERD:-.cache/anchor/node_modules/workerd/bin/workerd}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/config.capnp" <<'CAPNP'
using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "main", worker = .w) ] );
const w :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.js") ],
  compatibilityDate = "2026-11-01",
);
CAPNP
cat >"$tmp/worker.js" <<'JS'
const probes = {
  "iterator-helpers": () => typeof Iterator === "function" && typeof Iterator.prototype.map === "function",
  "iterator-chunking": () => typeof Iterator.prototype.chunks === "function",
  "iterator-includes": () => typeof Iterator.prototype.includes === "function",
  "Iterator.prototype.join": () => typeof Iterator.prototype.join === "function",
  "iterator-sequencing": () => typeof Iterator.concat === "function",
  "joint-iteration": () => typeof Iterator.zip === "function",
  "upsert": () => typeof Map.prototype.getOrInsert === "function",
  "await-dictionary": () => typeof Promise.allKeyed === "function",
  "immutable-arraybuffer": () => typeof ArrayBuffer.prototype.transferToImmutable === "function",
  // the proposal moves stack to an accessor on Error.prototype; V8 keeps
  // an own accessor on each error
  "error-stack-accessor": () => Object.getOwnPropertyDescriptor(Error.prototype, "stack") !== undefined,
  "nonextensible-applies-to-private": () => {
    class B { constructor(o) { return o; } }
    class A extends B { #x = 1; }
    try { new A(Object.preventExtensions({})); return false; } catch (e) { return e instanceof TypeError; }
  },
  // the proposal forbids the legacy statics after a subclass's exec
  "legacy-regexp": () => { class R extends RegExp {} new R("(b)").exec("b"); try { RegExp.$1; return false; } catch { return true; } },
  "Temporal": () => typeof Temporal === "object",
  "ShadowRealm": () => typeof ShadowRealm === "function",
  "Intl.Locale-info": () => typeof new Intl.Locale("en").getWeekInfo === "function",
  "Intl.DurationFormat": () => typeof Intl.DurationFormat === "function",
  "SharedArrayBuffer": () => typeof SharedArrayBuffer === "function",
  "Atomics": () => typeof Atomics === "object",
  "Atomics.waitAsync": () => typeof Atomics.waitAsync === "function",
  "Atomics.pause": () => typeof Atomics.pause === "function",
  "Math.sumPrecise": () => typeof Math.sumPrecise === "function",
  "RegExp.escape": () => typeof RegExp.escape === "function",
  "regexp-modifiers": () => new RegExp("(?i:a)b").test("Ab"),
  "regexp-duplicate-named-groups": () => new RegExp("(?<a>x)|(?<a>y)").exec("y").groups.a === "y",
  "json-parse-with-source": () => { let s; JSON.parse("1", (k, v, c) => { s = c && c.source; return v; }); return s === "1"; },
  "uint8array-base64": () => typeof Uint8Array.fromBase64 === "function",
  "Float16Array": () => typeof Float16Array === "function",
  "explicit-resource-management": () => typeof DisposableStack === "function",
  "Error.isError": () => typeof Error.isError === "function",
};
export default {
  async test() {
    for (const [name, probe] of Object.entries(probes)) {
      let shipped;
      try { shipped = probe() === true; } catch { shipped = false; }
      console.log("PROBE\t" + name + "\t" + (shipped ? "shipped" : "absent"));
    }
  },
};
JS
out=internal/test262/testdata/workerd-features.tsv
{
	echo "# test262 features in $("$wd" --version) (written by internal/test262/probe-workerd.sh)"
	"$wd" test "$tmp/config.capnp" 2>&1 | grep -a '^PROBE' | cut -f2- | sort
} >"$out.tmp"
mv "$out.tmp" "$out"
cat "$out"

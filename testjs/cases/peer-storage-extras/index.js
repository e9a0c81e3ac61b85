// Ported from workerd (github.com/cloudflare/workerd, commit 6552d999c79e):
//   src/workerd/api/tests/sql-restrict-names-test.js,
//   src/workerd/api/tests/sql-resizable-arraybuffer-test.js,
//   src/workerd/api/tests/kv-resizable-arraybuffer-test.js.
//   Copyright (c) 2025 Cloudflare, Inc. Licensed under the Apache 2.0 license
//   found in the LICENSE file or at: https://opensource.org/licenses/Apache-2.0
// cellhost's own port, in the peer suite's format (its prelude, copied from
// ../../../../shared/conformance/peer/wd-sql): one endpoint per test (the
// reserved-names test split into its three blocks), run in the Durable
// Object where the original ran there. The KV tests use a kv_namespaces
// binding (the original mocks KV with a WorkerEntrypoint).
// Not from workerd: 'storage put: resizable ArrayBuffer' and the
// structuredClone check, which extend the same question (a resizable buffer
// changed after the call) to ctx.storage and structured clone.
import { DurableObject } from 'cloudflare:workers';
import { assert, ok, strictEqual, throws, __route, __inDO } from '../_shared/peer-prelude.js'; // the peer suite's prelude (assert shim, HTTP harness)

const DT = {}; // tests run inside the Durable Object

// ---- sql-restrict-names-test.js (split into its blocks) ----
DT['sql restrict names: mixed-case _cf_ prefix'] = async (state) => {
  const sql = state.storage.sql;
  // Case-insensitive _cf_ prefix blocking: mixed-case variants are rejected.
  for (const name of ['_CF_test', '_Cf_test', '_cF_test']) {
    assert.throws(
      () => sql.exec(`CREATE TABLE ${name} (name TEXT)`),
      /not authorized/,
      `Expected CREATE TABLE ${name} to be blocked`
    );
  }
};

DT['sql restrict names: _cf_ virtual tables'] = async (state) => {
  const sql = state.storage.sql;
  // Virtual tables with _cf_ prefix are blocked.
  assert.throws(
    () => sql.exec('CREATE VIRTUAL TABLE _cf_fts_test USING fts5(content)'),
    /not authorized/
  );
  assert.throws(
    () => sql.exec('CREATE VIRTUAL TABLE _CF_fts_test USING fts5(content)'),
    /not authorized/
  );
};

DT['sql restrict names: other virtual tables work'] = async (state) => {
  const sql = state.storage.sql;
  // Non-_cf_ prefixed virtual tables still work.
  sql.exec('CREATE VIRTUAL TABLE my_fts USING fts5(content)');
  sql.exec('DROP TABLE my_fts');
};

// ---- sql-resizable-arraybuffer-test.js ----
DT['testResizableArrayBufferBlobBinding'] = async (state) => {
  const sql = state.storage.sql;

  // Allocate a resizable ArrayBuffer and fill it with a known pattern.
  const rab = new ArrayBuffer(64, { maxByteLength: 256 });
  const view = new Uint8Array(rab);
  for (let i = 0; i < view.length; i++) {
    view[i] = i & 0xff;
  }

  // Bind the resizable ArrayBuffer as a blob parameter.
  const cursor = sql.exec('SELECT ? AS x', rab);

  // Shrink the buffer to zero.
  rab.resize(0);

  const rows = cursor.toArray();
  assert.strictEqual(rows.length, 1);

  // The blob should contain the original 64 bytes (copied before resize).
  const blob = new Uint8Array(rows[0].x);
  assert.strictEqual(blob.length, 64);
  for (let i = 0; i < blob.length; i++) {
    assert.strictEqual(
      blob[i],
      i & 0xff,
      `byte at index ${i} should be ${i & 0xff} but got ${blob[i]}`
    );
  }
};

DT['testResizableArrayBufferViewBlobBinding'] = async (state) => {
  const sql = state.storage.sql;

  // Use a Uint8Array view over a resizable ArrayBuffer.
  const rab = new ArrayBuffer(128, { maxByteLength: 512 });
  const fullView = new Uint8Array(rab);
  for (let i = 0; i < fullView.length; i++) {
    fullView[i] = (i * 3) & 0xff;
  }

  // Create a view over a sub-range.
  const subView = new Uint8Array(rab, 16, 32);

  const cursor = sql.exec('SELECT ? AS x', subView);

  // Shrink the underlying buffer.
  rab.resize(0);

  const rows = cursor.toArray();
  assert.strictEqual(rows.length, 1);

  const blob = new Uint8Array(rows[0].x);
  assert.strictEqual(blob.length, 32);
  for (let i = 0; i < blob.length; i++) {
    const expected = ((i + 16) * 3) & 0xff;
    assert.strictEqual(
      blob[i],
      expected,
      `byte at index ${i} should be ${expected} but got ${blob[i]}`
    );
  }
};

DT['testNonResizableArrayBufferStillWorks'] = async (state) => {
  const sql = state.storage.sql;

  // Sanity check: non-resizable ArrayBuffer blob binding still works.
  const ab = new ArrayBuffer(8);
  const view = new Uint8Array(ab);
  for (let i = 0; i < view.length; i++) {
    view[i] = 0xaa;
  }

  const rows = [...sql.exec('SELECT ? AS x', ab)];
  assert.strictEqual(rows.length, 1);
  const blob = new Uint8Array(rows[0].x);
  assert.strictEqual(blob.length, 8);
  for (let i = 0; i < blob.length; i++) {
    assert.strictEqual(blob[i], 0xaa);
  }
};

// ---- not from workerd: the same question for ctx.storage ----
DT['storage put: resizable ArrayBuffer'] = async (state) => {
  const body = new ArrayBuffer(7, { maxByteLength: 16 });
  new TextEncoder().encodeInto('initial', new Uint8Array(body));
  const promise = state.storage.put('rab', body);
  new TextEncoder().encodeInto('changed', new Uint8Array(body));
  body.resize(0);
  await promise;
  const stored = await state.storage.get('rab');
  assert.ok(stored instanceof ArrayBuffer);
  assert.strictEqual(new TextDecoder().decode(stored), 'initial');
  assert.strictEqual(stored.resizable, true);
  assert.strictEqual(stored.maxByteLength, 16);
};

DT['structuredClone: resizable ArrayBuffer'] = async () => {
  const rab = new ArrayBuffer(4, { maxByteLength: 8 });
  new Uint8Array(rab).set([1, 2, 3, 4]);
  const copy = structuredClone(rab);
  assert.strictEqual(copy.resizable, true);
  assert.strictEqual(copy.maxByteLength, 8);
  assert.deepEqual([...new Uint8Array(copy)], [1, 2, 3, 4]);
  copy.resize(8);
  assert.strictEqual(rab.byteLength, 4);
  const view = structuredClone(new Uint8Array(rab, 1));
  assert.strictEqual(view.length, 3);
  rab.resize(6);
  assert.strictEqual(view.length, 3);
  assert.strictEqual(view.buffer.resizable, true);
};

export class DurableObjectExample extends DurableObject {
  constructor(state, env) {
    super(state, env);
    this.state = state;
  }

  async fetch(req) {
    return __route(DT, req, this.state);
  }
}

// ---- worker side ----
const WT = {};
const obj = (env) => env.ns.get(env.ns.idFromName('A'));
for (const name of Object.keys(DT)) WT[name] = (env) => __inDO(obj(env), name);

// ---- kv-resizable-arraybuffer-test.js ----
WT['kvPutResizableArrayBuffer'] = async (env) => {
  const body = new ArrayBuffer(7, { maxByteLength: 16 });
  new TextEncoder().encodeInto('initial', new Uint8Array(body));
  const promise = env.KV.put('blah', body);
  new TextEncoder().encodeInto('changed', new Uint8Array(body));
  await promise;

  // Verify KV received "initial" (the data at put-time), not "changed".
  const stored = await env.KV.get('blah');
  assert.strictEqual(stored, 'initial');
};

WT['kvPutResizableArrayBufferThenShrink'] = async (env) => {
  const body = new ArrayBuffer(64, { maxByteLength: 128 });
  const view = new Uint8Array(body);
  for (let i = 0; i < 64; i++) view[i] = i;

  const promise = env.KV.put('shrink-test', body);
  body.resize(0);
  await promise;

  // Verify KV received all 64 bytes.
  const stored = await env.KV.get('shrink-test', { type: 'arrayBuffer' });
  assert.strictEqual(stored.byteLength, 64);
  const result = new Uint8Array(stored);
  for (let i = 0; i < 64; i++) {
    assert.strictEqual(result[i], i, `byte ${i}`);
  }
};

export default {
  async fetch(request, env, ctx) {
    return __route(WT, request, env, ctx);
  },
};

// Copyright (C) 2026 the cellhost authors. BSD licence, as test262.
/*---
description: Built-ins libraries call without feature checks (core-js polyfills, the fork's WeakRef, the prelude's Error.captureStackTrace)
includes: [compareArray.js]
---*/
assert.compareArray([1, 2, 3, 4].values().filter(function (x) { return x % 2 === 0; }).toArray(), [2, 4]);
assert.sameValue(typeof Promise.withResolvers, "function");
assert.sameValue(typeof Array.fromAsync, "function");
assert.compareArray(Object.groupBy([1, 2, 3], function (x) { return x % 2 ? "odd" : "even"; }).odd, [1, 3]);
assert.sameValue(new WeakRef(Object).deref(), Object);
assert.sameValue(typeof FinalizationRegistry, "function");
var o = {};
Error.captureStackTrace(o);
assert.sameValue(typeof o.stack, "string");
assert.sameValue(Object.getOwnPropertyDescriptor(o, "stack").enumerable, false);
// workerd's V8 ships these; goja lacks them and core-js provides them
// (internal/test262/testdata/workerd-features.tsv)
assert.sameValue(new Map().getOrInsert("k", 1), 1);
assert.sameValue(new Map([["k", 2]]).getOrInsertComputed("k", function () { return 3; }), 2);
assert.compareArray(Iterator.zip([[1, 2], [3, 4]]).toArray().map(function (p) { return p.join(); }), ["1,3", "2,4"]);
assert.sameValue(Math.sumPrecise([1e20, 1, -1e20]), 1);
assert.sameValue([1, 2, 3].values().includes(2), true);
assert.sameValue([1, 2].values().join("-"), "1-2");

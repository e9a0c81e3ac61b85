// Copyright (C) 2026 the cellhost authors. BSD licence, as test262.
/*---
description: ArrayBuffer.prototype.transfer, transferToFixedLength and detached move the bytes and detach the source; slice of a detached buffer throws
includes: [compareArray.js]
features: [arraybuffer-transfer]
---*/
var a = new ArrayBuffer(4);
new Uint8Array(a).set([1, 2, 3, 4]);
var view = new Uint8Array(a);
var b = a.transfer();
assert.sameValue(a.detached, true);
assert.sameValue(a.byteLength, 0);
assert.sameValue(view.length, 0);
assert.sameValue(b.detached, false);
assert.compareArray(Array.from(new Uint8Array(b)), [1, 2, 3, 4]);
var c = b.transferToFixedLength(6);
assert.compareArray(Array.from(new Uint8Array(c)), [1, 2, 3, 4, 0, 0]);
var d = c.transfer(2);
assert.compareArray(Array.from(new Uint8Array(d)), [1, 2]);
assert.throws(TypeError, function () { a.transfer(); });
assert.throws(TypeError, function () { a.slice(); });
assert.throws(TypeError, function () { a.slice(0, 0); });
assert.throws(RangeError, function () { d.transfer(-1); });
assert.sameValue(d.detached, false);

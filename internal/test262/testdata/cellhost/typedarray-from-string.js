// Copyright (C) 2026 the cellhost authors. BSD licence, as test262.
/*---
description: TypedArray.from takes a string (an iterable that is not an object)
includes: [compareArray.js]
features: [TypedArray]
---*/
assert.compareArray(Array.from(Uint8Array.from("ab", function (c) { return c.charCodeAt(0); })), [97, 98]);
assert.sameValue(Uint8Array.from(5).length, 0);
assert.throws(TypeError, function () { Uint8Array.from(null); });

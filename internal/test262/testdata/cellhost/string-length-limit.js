// Copyright (C) 2026 the cellhost authors. BSD licence, as test262.
/*---
description: Strings past V8's String::kMaxLength (2^29-24) throw RangeError "Invalid string length" instead of exhausting memory
---*/
assert.throws(RangeError, function () { "ab".repeat(Math.pow(2, 28)); });
assert.throws(RangeError, function () { "".padEnd(Math.pow(2, 29)); });
try { "x".repeat(Math.pow(2, 29)); } catch (e) { assert.sameValue(e.message, "Invalid string length"); }

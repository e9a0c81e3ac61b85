// Copyright (C) 2026 the cellhost authors. BSD licence, as test262.
/*---
description: Unbounded recursion throws a catchable RangeError, as V8 does (goja threw an uncatchable error)
---*/
function f() { return f() + 1; }
var caught;
try { f(); } catch (e) { caught = e; }
assert(caught instanceof RangeError, "a RangeError");
assert.sameValue(caught.message, "Maximum call stack size exceeded");
assert.sameValue([1, 2].map(function (x) { return x * 2; }).join(), "2,4", "the runtime still works");

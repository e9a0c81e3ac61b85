// Copyright (C) 2026 the cellhost authors. BSD licence, as test262.
/*---
description: The arguments arrays Proxy apply and construct traps receive are theirs (goja reused the VM stack)
features: [Proxy]
---*/
var p = new Proxy(function () {}, { apply: function (t, th, a) { return a; } });
var a = p("one", "two");
Math.max(7, 8, 9);
assert.sameValue(a[0], "one");
assert.sameValue(a[1], "two");
var C = new Proxy(function () {}, { construct: function (t, args) { return { args: args }; } });
var o = new C("three");
Math.min(1, 2, 3);
assert.sameValue(o.args[0], "three");

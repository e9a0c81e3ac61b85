// Copyright (C) 2026 the cellhost authors. BSD licence, as test262.
/*---
description: Class fields named get, set, static and async, with or without an initializer (goja parser bug; hono's classes)
features: [class-fields-public]
---*/
class A { get = 1; set = 2; static = 3; async = 4 }
class B { static get = 5; static async }
class C { get }
var a = new A();
assert.sameValue(a.get, 1);
assert.sameValue(a.set, 2);
assert.sameValue(a.static, 3);
assert.sameValue(a.async, 4);
assert.sameValue(B.get, 5);
assert(Object.prototype.hasOwnProperty.call(B, "async"), "B.async is a static field");
assert(Object.prototype.hasOwnProperty.call(new C(), "get"), "get is a field");

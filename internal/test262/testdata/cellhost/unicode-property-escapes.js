// Copyright (C) 2026 the cellhost authors. BSD licence, as test262.
/*---
description: Unicode property escapes in patterns goja translates to RE2 (it turned \p{L} into p{L})
features: [regexp-unicode-property-escapes]
---*/
assert(/\p{L}/u.test("a"), "\\p{L}");
assert(!/\p{L}/u.test("1"), "\\p{L} on a digit");
assert(/^\p{Lu}+$/u.test("ABC"), "\\p{Lu}+");
assert(/\P{L}/u.test("1"), "\\P{L}");
assert(/[\p{L}\d]/u.test("\u00e9"), "in a class");
assert(/\p{Script=Greek}/u.test("\u03b1"), "Script=");
assert(/\p{General_Category=Decimal_Number}/u.test("\u0663"), "General_Category=");
assert(/\p{Alphabetic}/u.test("\u00df"), "Alphabetic");
assert(!/\p{ID_Start}/u.test("_") && /\p{ID_Continue}/u.test("_"), "ID_Start, ID_Continue");
assert(/p{L}/.test("p{L}") && /\p{L}/.test("p{L}"), "no u flag: an identity escape");
// With a lookahead the pattern goes to regexp2, which gets the same escapes rewritten.
assert(/\p{Script=Greek}(?=!)/u.test("\u03b1!"), "Script= through regexp2");
assert(/^\p{gc=Lu}+(?=1)/u.test("AB1"), "gc= through regexp2");
assert(/(?<=\p{Alphabetic})x/u.test("\u00dfx"), "Alphabetic in a lookbehind");

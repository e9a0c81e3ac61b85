package jsapi

import (
	"encoding/json"
	"testing"
	"unicode/utf16"
)

func TestV8JSONError(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`not json`, `Unexpected token 'o', "not json" is not valid JSON`},
		{``, `Unexpected end of JSON input`},
		{`   `, `Unexpected end of JSON input`},
		{`{a:1}`, `Expected property name or '}' in JSON at position 1 (line 1 column 2)`},
		{`{`, `Expected property name or '}' in JSON at position 1 (line 1 column 2)`},
		{`{"a"`, `Expected ':' after property name in JSON at position 4 (line 1 column 5)`},
		{`{"a":`, `Unexpected end of JSON input`},
		{`{"a":1`, `Expected ',' or '}' after property value in JSON at position 6 (line 1 column 7)`},
		{`{"a":1,}`, `Expected double-quoted property name in JSON at position 7 (line 1 column 8)`},
		{`[1 2]`, `Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)`},
		{`[1`, `Expected ',' or ']' after array element in JSON at position 2 (line 1 column 3)`},
		{`[1,]`, `Unexpected token ']', "[1,]" is not valid JSON`},
		{`{"a":1}x`, `Unexpected non-whitespace character after JSON at position 7 (line 1 column 8)`},
		{"{\n  \"a\": 1\n}\n}", "Unexpected non-whitespace character after JSON at position 13 (line 4 column 1)"},
		{`undefined`, `"undefined" is not valid JSON`},
		{`[object Object]`, `"[object Object]" is not valid JSON`},
		{`NaN`, `"NaN" is not valid JSON`},
		{`tru`, `Unexpected end of JSON input`},
		{`trux`, `Unexpected token 'x', "trux" is not valid JSON`},
		{`nul1`, `Unexpected number in JSON at position 3 (line 1 column 4)`},
		{`01`, `Unexpected number in JSON at position 1 (line 1 column 2)`},
		{`-`, `No number after minus sign in JSON at position 1 (line 1 column 2)`},
		{`1.`, `Unterminated fractional number in JSON at position 2 (line 1 column 3)`},
		{`1e+`, `Exponent part is missing a number in JSON at position 3 (line 1 column 4)`},
		{`"abc`, `Unterminated string in JSON at position 4 (line 1 column 5)`},
		{`"a\x"`, `Bad escaped character in JSON at position 3 (line 1 column 4)`},
		{`"\u12G4"`, `Bad Unicode escape in JSON at position 5 (line 1 column 6)`},
		{"\"a\tb\"", `Bad control character in string literal in JSON at position 2 (line 1 column 3)`},
		{`'single'`, `Unexpected token ''', "'single'" is not valid JSON`},
		{`{"aaaaaaaaaaaaaaaaaaaa": tru}`, `Unexpected token '}', ..."aaaa": tru}" is not valid JSON`},
		{`x{"aaaaaaaaaaaaaaaaaaaa": true}`, `Unexpected token 'x', "x{"aaaaaaa"... is not valid JSON`},
		{`{"aaaaaaaaaaa": x, "bbbbbbbbbbbbbb": 1}`, `Unexpected token 'x', ..."aaaaaaa": x, "bbbbbb"... is not valid JSON`},
		{`{"a": 1}`, ``},
		{` [1, -0.5e-3, "x\u00e9\n", true, false, null, {}] `, ``},
	} {
		if got := v8JSONError(utf16.Encode([]rune(c.in))); got != c.want {
			t.Errorf("v8JSONError(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

func TestJSONParse_v8Messages(t *testing.T) {
	rt, _ := newWebRuntime(t)
	got := runJS(t, rt, `
		const out = [];
		for (const s of ["not json", "", "{a:1}", '{"a":1}x', "[1,]", "01", '{"a":1,}']) {
			try { JSON.parse(s); out.push("ok"); } catch (e) { out.push(e.name + ": " + e.message + " " + (e instanceof SyntaxError)); }
		}
		try { JSON.parse('{"a":1}', () => { throw new TypeError("from reviver"); }); } catch (e) { out.push(e.name + ": " + e.message); }
		out.push(JSON.parse('{"a":[1,2]}', (k, v) => (k === "a" ? v.length : v)).a);
		JSON.stringify(out)`).String()
	want := `["SyntaxError: Unexpected token 'o', \"not json\" is not valid JSON true","SyntaxError: Unexpected end of JSON input true","SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2) true","SyntaxError: Unexpected non-whitespace character after JSON at position 7 (line 1 column 8) true","SyntaxError: Unexpected token ']', \"[1,]\" is not valid JSON true","SyntaxError: Unexpected number in JSON at position 1 (line 1 column 2) true","SyntaxError: Expected double-quoted property name in JSON at position 7 (line 1 column 8) true","TypeError: from reviver",2]`
	jsonEqual(t, "JSON.parse errors", got, want)
}

// FuzzV8JSONError checks the V8 checker accepts exactly what a strict JSON
// parser accepts (for ASCII input, where the two must agree).
func FuzzV8JSONError(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[1,]`, `01`, `"\u0041"`, `-0.5e+7`, `{"a" 1}`, "\"\t\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return
			}
		}
		msg := v8JSONError(utf16.Encode([]rune(s)))
		if valid := json.Valid([]byte(s)); valid != (msg == "") {
			t.Fatalf("%q: json.Valid=%v, v8 message %q", s, valid, msg)
		}
	})
}

// TestJSONParse_gojaAgrees makes sure goja rejects what V8 rejects, so the
// translation step runs (it only runs when goja fails).
func TestJSONParse_gojaAgrees(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for _, s := range []string{`01`, `1.`, `[1,]`, `{"a":1,}`, "\"a\tb\"", `"\x"`, `-`, `+1`, `.5`, `0x10`, `Infinity`, `"\u00"`, `1e`, `[01]`, `{"a":01}`, `tRue`, `[1]]`, `{} {}`} {
		rt.Set("s", s)
		v := runJS(t, rt, `(() => { try { JSON.parse(s); return "accepted"; } catch (e) { return e.message; } })()`).String()
		want := v8JSONError(utf16.Encode([]rune(s)))
		if v != want {
			t.Errorf("JSON.parse(%q) = %q, V8 says %q", s, v, want)
		}
	}
}

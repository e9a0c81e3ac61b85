package web

import (
	"testing"
	"unicode/utf16"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"

	"github.com/cellhost/cellhost/internal/v8json"
)

func TestJSONParse_v8Messages(t *testing.T) {
	rt, _ := newWebRuntime(t)
	got := jstest.Run(t, rt, `
		const out = [];
		for (const s of ["not json", "", "{a:1}", '{"a":1}x', "[1,]", "01", '{"a":1,}']) {
			try { JSON.parse(s); out.push("ok"); } catch (e) { out.push(e.name + ": " + e.message + " " + (e instanceof SyntaxError)); }
		}
		try { JSON.parse('{"a":1}', () => { throw new TypeError("from reviver"); }); } catch (e) { out.push(e.name + ": " + e.message); }
		out.push(JSON.parse('{"a":[1,2]}', (k, v) => (k === "a" ? v.length : v)).a);
		JSON.stringify(out)`).String()
	want := `["SyntaxError: Unexpected token 'o', \"not json\" is not valid JSON true","SyntaxError: Unexpected end of JSON input true","SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2) true","SyntaxError: Unexpected non-whitespace character after JSON at position 7 (line 1 column 8) true","SyntaxError: Unexpected token ']', \"[1,]\" is not valid JSON true","SyntaxError: Unexpected number in JSON at position 1 (line 1 column 2) true","SyntaxError: Expected double-quoted property name in JSON at position 7 (line 1 column 8) true","TypeError: from reviver",2]`
	jstest.JSONEqual(t, "JSON.parse errors", got, want)
}

// TestJSONParse_gojaAgrees makes sure goja rejects what V8 rejects, so the
// translation step runs (it only runs when goja fails).
func TestJSONParse_gojaAgrees(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for _, s := range []string{`01`, `1.`, `[1,]`, `{"a":1,}`, "\"a\tb\"", `"\x"`, `-`, `+1`, `.5`, `0x10`, `Infinity`, `"\u00"`, `1e`, `[01]`, `{"a":01}`, `tRue`, `[1]]`, `{} {}`} {
		rt.Set("s", s)
		v := jstest.Run(t, rt, `(() => { try { JSON.parse(s); return "accepted"; } catch (e) { return e.message; } })()`).String()
		want := v8json.Message(utf16.Encode([]rune(s)))
		if v != want {
			t.Errorf("JSON.parse(%q) = %q, V8 says %q", s, v, want)
		}
	}
}

package v8json

import (
	"encoding/json"
	"testing"
	"unicode/utf16"
)

func TestMessage(t *testing.T) {
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
		if got := Message(utf16.Encode([]rune(c.in))); got != c.want {
			t.Errorf("Message(%q)\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

// FuzzMessage checks the V8 checker accepts exactly what a strict JSON
// parser accepts (for ASCII input, where the two must agree).
func FuzzMessage(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[1,]`, `01`, `"\u0041"`, `-0.5e+7`, `{"a" 1}`, "\"\t\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return
			}
		}
		msg := Message(utf16.Encode([]rune(s)))
		if valid := json.Valid([]byte(s)); valid != (msg == "") {
			t.Fatalf("%q: json.Valid=%v, v8 message %q", s, valid, msg)
		}
	})
}

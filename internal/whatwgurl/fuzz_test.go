package whatwgurl

import "testing"

// FuzzParse checks that the parser does not panic, and that a URL's href
// parses again to the same href (the standard's serializer round trip).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"http://example.org/foo/bar", "https://user:pass@[::1]:8080/a/../b?q=1#f", "file:///C:/x", "web+demo:/.//not-a-host/",
		"http://0x7f.1/", "http://xn--nxasmq6b.com/", "blob:https://a.b/c", "data:text/plain,hi", "  http://a\tb/\n", "sc://ñ",
	} {
		f.Add(s, "")
		f.Add(s, "http://base.example/dir/file")
	}
	f.Fuzz(func(t *testing.T, input, base string) {
		var b *URL
		if base != "" {
			var err error
			if b, err = Parse(base, nil); err != nil {
				return
			}
		}
		u, err := Parse(input, b)
		if err != nil {
			return
		}
		href := u.Href()
		again, err := Parse(href, nil)
		if err != nil {
			t.Fatalf("Parse(%q, %q).Href() = %q, which does not parse: %v", input, base, href, err)
		}
		if again.Href() != href {
			t.Fatalf("Parse(%q, %q).Href() = %q, which parses to %q", input, base, href, again.Href())
		}
		for _, name := range []string{"protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"} {
			SetComponent(u, name, input)
		}
	})
}

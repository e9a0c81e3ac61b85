package web

import (
	"reflect"
	"strings"
	"testing"

	"github.com/andybalholm/cascadia"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

func TestTextChunks(t *testing.T) {
	for _, c := range []struct {
		raw     string
		rawText bool
		want    []interface{}
	}{
		{"plain", false, []interface{}{"plain"}},
		{"if (a < b) { x(); }", true, []interface{}{"if (a ", "<", " b) { x(); }"}},
		{"<b>x</b>", true, []interface{}{"<", "b>x", "</b", ">"}},
		{"a < b", false, []interface{}{"a ", "<", " b"}},
	} {
		if got := textChunks(c.raw, c.rawText); !reflect.DeepEqual(got, c.want) {
			t.Errorf("textChunks(%q, %v) = %q, want %q", c.raw, c.rawText, got, c.want)
		}
	}
}

func TestRawAttrs(t *testing.T) {
	got := rawAttrs([]byte(`<input type=text value='a b' disabled data-x = "q>r" />`))
	want := [][2]string{{"type", "type=text"}, {"value", "value='a b'"}, {"disabled", "disabled"}, {"data-x", `data-x = "q>r"`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rawAttrs = %q, want %q", got, want)
	}
	if n, v := splitRawAttr(`Title = "a&amp;b"`); n != "Title" || v != "a&amp;b" {
		t.Errorf("splitRawAttr = %q, %q", n, v)
	}
}

func TestSelectorError(t *testing.T) {
	for sel, want := range map[string]string{
		"":                             "The selector is empty.",
		"div >":                        "Dangling combinator in selector.",
		"a:hover":                      "Unsupported pseudo-class or pseudo-element in selector.",
		"::before":                     "Unsupported pseudo-class or pseudo-element in selector.",
		"a + b":                        "Unsupported combinator `+` in selector.",
		"[":                            "Unexpected end of selector.",
		"ul > li:nth-child(2n+1)":      "",
		"div.x#y[data-k^=ab] :not(.z)": "",
	} {
		if got := selectorError(sel); got != want {
			t.Errorf("selectorError(%q) = %q, want %q", sel, got, want)
		}
	}
}

// FuzzPlanHTML: documents come from the network; the plan never panics
// and its tokens' raw text is the document.
func FuzzPlanHTML(f *testing.F) {
	f.Add([]byte(`<!DOCTYPE html><div id=a class="x y"><p>Hi <b>there</b><br/><!-- c --></div><script>a<b</script>`))
	f.Add([]byte(`<ul><li>1<li>2</ul></p><textarea></b></textarea`))
	sels := []cascadia.Selector{cascadia.MustCompile("div"), cascadia.MustCompile("li:first-child"), cascadia.MustCompile("p b")}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var b strings.Builder
		for _, tok := range planHTML(doc, sels) {
			if tok[0] != "x" {
				b.WriteString(tok[1].(string))
			}
		}
		if b.String() != string(doc) {
			t.Fatalf("tokens do not add up to the document:\n%q\n%q", b.String(), doc)
		}
	})
}

// TestHTMLRewriter_streamingPath: with a global ReadableStream (as WHATWG
// streams will provide), transform() streams the body: async handlers are
// awaited and a handler's error fails the stream. The stand-in stream
// here records what the rewriter enqueues.
func TestHTMLRewriter_streamingPath(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS+`
globalThis.__chunks = [];
globalThis.ReadableStream = class {
  constructor(src) {
    src.start({
      enqueue: (x) => __chunks.push(new TextDecoder().decode(x)),
      close: () => __chunks.push("<close>"),
      error: (e) => __chunks.push("error: " + e.message),
    });
  }
};`)
	jsCases(t, rt, [][2]string{
		{`attemptAsync(async () => {
			__chunks.length = 0;
			new HTMLRewriter()
				.on("p", { async element(e) { await null; e.setAttribute("q", "1"); e.onEndTag(async (t) => { await null; t.after("!"); }); } })
				.on("b", { text(t) { return Promise.resolve().then(() => { if (t.text) t.replace("B"); }); } })
				.transform(new Response("<p>x<b>y</b></p>"));
			for (let i = 0; i < 20; i++) await null;
			return __chunks.join("|");
		})`, `<p q="1">x<b>B</b></p>!|<close>`},
		{`attemptAsync(async () => {
			__chunks.length = 0;
			new HTMLRewriter().on("p", { async element() { throw new RangeError("boom"); } }).transform(new Response("<p>x</p>"));
			for (let i = 0; i < 20; i++) await null;
			return __chunks.join("|");
		})`, `error: boom`},
	})
}

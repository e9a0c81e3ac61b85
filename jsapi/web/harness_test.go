package web

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/jsapi/clone"
)

// A small stand-in for the host, enough to replay the stateless and
// single-object conformance cases against the web layer: the case's
// index.js is turned into a script, its DO classes get a fake namespace
// whose stub.fetch carries requests and responses across the Go bridge
// (RequestFromArgs/NewRequest, ExportResponse/NewResponse), and storage is
// a Go map holding Serialize'd values.

func casesDir(t testing.TB) string {
	t.Helper()
	for _, d := range []string{"../../testjs/testdata/cases", "../../../shared/conformance/cases"} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("conformance cases not found: shared/ must be beside the checkout under CI")
	}
	t.Skip("conformance cases not found (shared/ is not beside the checkout)")
	return ""
}

type caseStep struct {
	Req *struct {
		Method        string            `json:"method"`
		Path          string            `json:"path"`
		Headers       map[string]string `json:"headers"`
		Body          *string           `json:"body"`
		JSON          json.RawMessage   `json:"json"`
		BodyBase64    *string           `json:"bodyBase64"`
		RecordHeaders []string          `json:"recordHeaders"`
	} `json:"req"`
}

type caseResult struct {
	Req         string            `json:"req"`
	Status      int               `json:"status"`
	ContentType *string           `json:"contentType"`
	Body        string            `json:"body"`
	Headers     map[string]string `json:"headers,omitempty"`
}

var (
	reImport      = regexp.MustCompile(`(?m)^import .*$`)
	reExportClass = regexp.MustCompile(`(?m)^export class (\w+)`)
)

const harnessGlue = `
var __mod = {};
class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
function __makeStorage() {
  return {
    get: async (k) => __storageGet(String(k)),
    put: async (k, v) => { __storagePut(String(k), v); },
    delete: async (k) => __storageDelete(String(k)),
    list: async () => { const m = new Map(); for (const k of __storageKeys()) m.set(k, __storageGet(k)); return m; },
  };
}
function __makeNS(cls, env) {
  const instances = new Map();
  return {
    idFromName(name) { return { name, toString() { return name; } }; },
    get(id) {
      return {
        fetch(input, init) {
          const key = String(id);
          let inst = instances.get(key);
          if (!inst) { inst = new cls({ id, storage: __makeStorage() }, env); instances.set(key, inst); }
          const req = __crossRequest(input, init);
          return Promise.resolve(inst.fetch(req)).then((res) => __crossResponse(res));
        },
      };
    },
  };
}
`

type harness struct {
	t       *testing.T
	rt      *goja.Runtime
	fetch   goja.Callable
	env     goja.Value
	storage map[string][]byte
}

func newHarness(t *testing.T, caseName string, bindings map[string]string) *harness {
	src, err := os.ReadFile(filepath.Join(casesDir(t), caseName, "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := newWebRuntime(t)
	h := &harness{t: t, rt: rt, storage: map[string][]byte{}}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rt.Set("__crossRequest", func(c goja.FunctionCall) goja.Value {
		r, err := RequestFromArgs(rt, c.Argument(0), c.Argument(1))
		if err != nil {
			jserr.Throw(rt, err)
		}
		v, err := NewRequest(rt, r)
		if err != nil {
			jserr.Throw(rt, err)
		}
		return v
	}))
	must(rt.Set("__crossResponse", func(c goja.FunctionCall) goja.Value {
		r, err := ExportResponse(rt, c.Argument(0))
		if err != nil {
			jserr.Throw(rt, err)
		}
		v, err := NewResponse(rt, r)
		if err != nil {
			jserr.Throw(rt, err)
		}
		return v
	}))
	must(rt.Set("__storageGet", func(c goja.FunctionCall) goja.Value {
		b, ok := h.storage[c.Argument(0).String()]
		if !ok {
			return goja.Undefined()
		}
		v, err := clone.Deserialize(rt, b)
		if err != nil {
			jserr.Throw(rt, err)
		}
		return v
	}))
	must(rt.Set("__storagePut", func(c goja.FunctionCall) goja.Value {
		b, err := clone.Serialize(rt, c.Argument(1))
		if err != nil {
			jserr.Throw(rt, err)
		}
		h.storage[c.Argument(0).String()] = b
		return goja.Undefined()
	}))
	must(rt.Set("__storageDelete", func(c goja.FunctionCall) goja.Value {
		k := c.Argument(0).String()
		_, ok := h.storage[k]
		delete(h.storage, k)
		return rt.ToValue(ok)
	}))
	must(rt.Set("__storageKeys", func(c goja.FunctionCall) goja.Value {
		keys := make([]interface{}, 0, len(h.storage))
		for k := range h.storage {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].(string) < keys[j].(string) })
		return rt.NewArray(keys...)
	}))
	script := reImport.ReplaceAllString(string(src), "")
	script = reExportClass.ReplaceAllString(script, "__mod.$1 = class $1")
	script = strings.Replace(script, "export default", "__mod.default =", 1)
	var envJS strings.Builder
	envJS.WriteString("var __env = {};\n")
	for name, cls := range bindings {
		envJS.WriteString("__env." + name + " = __makeNS(__mod." + cls + ", __env);\n")
	}
	if _, err := rt.RunString(harnessGlue + script + "\n" + envJS.String()); err != nil {
		t.Fatalf("load %s: %v", caseName, err)
	}
	mod := rt.Get("__mod").ToObject(rt)
	def := mod.Get("default").ToObject(rt)
	fetch, ok := goja.AssertFunction(def.Get("fetch"))
	if !ok {
		t.Fatal("no default fetch")
	}
	h.fetch = func(this goja.Value, args ...goja.Value) (goja.Value, error) { return fetch(def, args...) }
	h.env = rt.Get("__env")
	return h
}

// step plays one request step and returns its transcript entry.
func (h *harness) step(s caseStep) caseResult {
	t := h.t
	r := s.Req
	method := r.Method
	if method == "" {
		method = "GET"
	}
	host := "conformance.test"
	var hdr [][2]string
	for k, v := range r.Headers {
		if strings.EqualFold(k, "host") {
			host = v
			continue
		}
		hdr = append(hdr, [2]string{strings.ToLower(k), v})
	}
	var body []byte
	switch {
	case r.Body != nil:
		body = []byte(*r.Body)
	case r.BodyBase64 != nil:
		b, err := base64.StdEncoding.DecodeString(*r.BodyBase64)
		if err != nil {
			t.Fatal(err)
		}
		body = b
	case r.JSON != nil:
		body = []byte(r.JSON)
		if _, ok := r.Headers["Content-Type"]; !ok {
			hdr = append(hdr, [2]string{"content-type", "application/json"})
		}
	case method != "GET" && method != "HEAD":
		body = []byte{}
	}
	if body != nil {
		hdr = append(hdr, [2]string{"content-length", itoa(len(body))})
	}
	hdr = append([][2]string{{"host", host}}, hdr...)
	req, err := NewRequest(h.rt, &HTTPRequest{Method: method, URL: "http://" + host + r.Path, Header: hdr, Body: body})
	if err != nil {
		t.Fatal(err)
	}
	v, err := h.fetch(nil, req, h.env)
	if err != nil {
		t.Fatalf("%s %s: %v", method, r.Path, err)
	}
	if o, ok := v.(*goja.Object); ok && o.ExportType() == reflect.TypeOf((*goja.Promise)(nil)) {
		p := o.Export().(*goja.Promise)
		if p.State() != goja.PromiseStateFulfilled {
			t.Fatalf("%s %s: promise %v: %v", method, r.Path, p.State(), jserr.Text(p.Result()))
		}
		v = p.Result()
	}
	res, err := ExportResponse(h.rt, v)
	if err != nil {
		t.Fatalf("%s %s: %v", method, r.Path, err)
	}
	out := caseResult{Req: method + " " + r.Path, Status: res.Status}
	for _, kv := range res.Header {
		if kv[0] == "content-type" {
			ct := kv[1]
			out.ContentType = &ct
		}
		for _, want := range r.RecordHeaders {
			if strings.EqualFold(want, kv[0]) {
				if out.Headers == nil {
					out.Headers = map[string]string{}
				}
				if prev, ok := out.Headers[kv[0]]; ok {
					out.Headers[kv[0]] = prev + ", " + kv[1]
				} else {
					out.Headers[kv[0]] = kv[1]
				}
			}
		}
	}
	if method != "HEAD" {
		if utf8.Valid(res.Body) {
			out.Body = string(res.Body)
		} else {
			out.Body = "base64:" + base64.StdEncoding.EncodeToString(res.Body)
		}
	}
	return out
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// replayCase runs every step of a case and compares with expected.json the
// way compare.mjs does (bodies that parse as JSON compare as values).
func replayCase(t *testing.T, caseName string, bindings map[string]string) {
	dir := filepath.Join(casesDir(t), caseName)
	var steps []caseStep
	readJSON(t, filepath.Join(dir, "steps.json"), &steps)
	var expected struct {
		Steps []json.RawMessage `json:"steps"`
	}
	readJSON(t, filepath.Join(dir, "expected.json"), &expected)
	h := newHarness(t, caseName, bindings)
	for i, s := range steps {
		if s.Req == nil {
			t.Fatalf("step %d: only req steps are supported here", i)
		}
		got := h.step(s)
		var want caseResult
		if err := json.Unmarshal(expected.Steps[i], &want); err != nil {
			t.Fatal(err)
		}
		what := caseName + " step " + itoa(i) + " " + got.Req
		if testing.Verbose() {
			t.Logf("%s -> %d %s %s", what, got.Status, str(got.ContentType), got.Body)
		}
		if got.Status != want.Status {
			t.Errorf("%s: status %d, want %d", what, got.Status, want.Status)
		}
		if str(got.ContentType) != str(want.ContentType) {
			t.Errorf("%s: content type %s, want %s", what, str(got.ContentType), str(want.ContentType))
		}
		var gj, wj interface{}
		if json.Unmarshal([]byte(got.Body), &gj) == nil && json.Unmarshal([]byte(want.Body), &wj) == nil {
			jstest.JSONEqual(t, what+" body", got.Body, want.Body)
		} else if got.Body != want.Body {
			t.Errorf("%s: body %q, want %q", what, got.Body, want.Body)
		}
		for k, v := range want.Headers {
			if got.Headers[k] != v {
				t.Errorf("%s: header %s = %q, want %q", what, k, got.Headers[k], v)
			}
		}
	}
}

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

func readJSON(t *testing.T, path string, v interface{}) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestWebCase_hello(t *testing.T) {
	replayCase(t, "hello", map[string]string{"UNUSED": "Unused"})
}

func TestWebCase_body(t *testing.T) {
	replayCase(t, "body", map[string]string{"ACC": "Accumulator"})
}

func TestWebCase_webapi(t *testing.T) {
	replayCase(t, "webapi", map[string]string{"PROBE": "Probe"})
}

func TestCloneCase_kvValues(t *testing.T) {
	replayCase(t, "kv-values", map[string]string{"VALS": "Values"})
}

package web

import (
	"errors"
	"reflect"
	"testing"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

func TestParseDisposition(t *testing.T) {
	for _, c := range []struct {
		cd, disp string
		params   map[string]string
	}{
		{`form-data; name="a"; filename="b.txt"`, "form-data", map[string]string{"name": "a", "filename": "b.txt"}},
		{`form-data; name="q\"uo\\te"`, "form-data", map[string]string{"name": `q"uo\te`}},
		{`form-data; name=x`, "form-data", map[string]string{}},
		{`form-data; name="x"; filename*=UTF-8''a.txt`, "form-data", map[string]string{"name": "x"}},
		{`form-data; filename=""; name="x"`, "form-data", map[string]string{}},
	} {
		disp, params, ok := parseDisposition(c.cd)
		if !ok || disp != c.disp || !reflect.DeepEqual(params, c.params) {
			t.Errorf("parseDisposition(%q) = %q, %v, %v; want %q, %v", c.cd, disp, params, ok, c.disp, c.params)
		}
	}
}

func TestParseFormBody(t *testing.T) {
	mp := "preamble\r\n--zz\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nhello\r\n" +
		"--zz\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nfile\r\nbody\r\n" +
		"--zz\r\nContent-Disposition: form-data; name=\"g\"; filename=\"\"\r\n\r\n\r\n" +
		"--zz\nContent-Disposition: form-data; name=\"lf\"\n\nonly LF\n--zz--\r\n"
	got, err := parseFormBody([]byte(mp), "multipart/form-data; boundary=zz")
	if err != nil {
		t.Fatal(err)
	}
	want := []formEntry{
		{Name: "t", Value: "hello"},
		{Name: "f", File: true, Filename: "a.txt", Type: "text/plain", Data: []byte("file\r\nbody")},
		{Name: "g"},
		{Name: "lf", Value: "only LF"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.Value != w.Value || g.File != w.File || g.Filename != w.Filename || g.Type != w.Type || string(g.Data) != string(w.Data) {
			t.Errorf("entry %d: got %+v, want %+v", i, g, w)
		}
	}
	ue, err := parseFormBody([]byte("a=1&b=%20x+y&c"), "application/x-www-form-urlencoded;charset=utf-8")
	if err != nil || len(ue) != 3 || ue[1].Value != " x y" || ue[2].Value != "" {
		t.Errorf("urlencoded: %+v, %v", ue, err)
	}
	for _, c := range []struct{ body, ct, msg string }{
		{"x", "text/plain", errFormContentType},
		{"x", "", errFormContentType},
		{"x", "multipart/form-data", errFormNoBoundary},
		{"a=1", "application/x-www-form-urlencoded; charset=latin1", errFormCharset},
		{"garbage", "multipart/form-data; boundary=zz", errFormInitial},
		{"--zzX", "multipart/form-data; boundary=zz", errFormAfterBoundary},
		{"--zz\r\nContent-Disposition: form-data; name=\"t\"", "multipart/form-data; boundary=zz", errFormNoHeaderEnd},
		{"--zz\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nhello", "multipart/form-data; boundary=zz", errFormSubsequent},
		{"--zz\r\nContent-Type: a/b\r\n\r\nhello\r\n--zz--", "multipart/form-data; boundary=zz", errFormNoCD},
		{"--zz\r\nContent-Disposition: form-data; filename=\"t\"\r\n\r\nx\r\n--zz--", "multipart/form-data; boundary=zz", errFormNoName},
		{"--zz\r\nBad Header\r\n\r\nx\r\n--zz--", "multipart/form-data; boundary=zz", errFormHeaders},
		{"--zz\r\nContent-Disposition: form-data; name=x\r\n\r\nx\r\n--zz--", "multipart/form-data; boundary=zz", errFormNoName},
		{"--zz\r\nContent-Disposition: ; name=\"x\"\r\n\r\nx\r\n--zz--", "multipart/form-data; boundary=zz", errFormBadCD},
	} {
		_, err := parseFormBody([]byte(c.body), c.ct)
		var je *jserr.Error
		if !errors.As(err, &je) || je.Name != "TypeError" || je.Message != c.msg {
			t.Errorf("parseFormBody(%q, %q) = %v, want TypeError %q", c.body, c.ct, err, c.msg)
		}
	}
}

// FuzzParseFormBody: form bodies come from the network; the parser never
// panics and fails only with a TypeError.
func FuzzParseFormBody(f *testing.F) {
	f.Add([]byte("--zz\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nhello\r\n--zz--"), "multipart/form-data; boundary=zz")
	f.Add([]byte("--zz\nContent-Disposition: form-data; name=\"f\"; filename=\"a\"\nContent-Type: x/y\n\n\n--zz--"), "multipart/form-data; boundary=zz")
	f.Add([]byte("a=1&b=%zz"), "application/x-www-form-urlencoded")
	f.Fuzz(func(t *testing.T, body []byte, ct string) {
		entries, err := parseFormBody(body, ct)
		if err != nil {
			var je *jserr.Error
			if !errors.As(err, &je) || je.Name != "TypeError" {
				t.Fatalf("error %v is not a TypeError", err)
			}
			return
		}
		for _, e := range entries {
			if !e.File && (e.Data != nil || e.Filename != "") {
				t.Fatalf("string entry with file fields: %+v", e)
			}
		}
	})
}

package fleet

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/internal/httpmsg"
)

// FuzzDecodeEnvelope: a decoded request re-encodes to a value that decodes
// to the same thing, and nothing panics.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(`{"class":"C","id":"abc","req":{"method":"GET","url":"http://x/","header":[["a","b"]],"body":"aGk="}}`), false)
	f.Add([]byte(`{"class":"C","id":"abc","method":"m","args":"AQI=","get":true}`), true)
	f.Add([]byte(`{"class":"C","id":"abc","req":null}`), false)
	f.Add([]byte(`{}`), true)
	f.Fuzz(func(t *testing.T, body []byte, call bool) {
		env, err := DecodeEnvelope(body, call)
		if err != nil {
			return
		}
		again, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		env2, err := DecodeEnvelope(again, call)
		if err != nil {
			t.Fatalf("re-encoded envelope does not decode: %v\n%s", err, again)
		}
		if a, b := mustJSON(t, env), mustJSON(t, env2); !bytes.Equal(a, b) {
			t.Fatalf("round trip changed the envelope:\n%s\n%s", a, b)
		}
	})
}

// FuzzDecodeReply: like FuzzDecodeEnvelope for the owner's answers.
func FuzzDecodeReply(f *testing.F) {
	f.Add([]byte(`{"status":200,"header":[["a","b"]],"body":"aGk="}`))
	f.Add([]byte(`{"error":{"kind":"not_owner","scope":"C:a","owner":"node_b","addr":"b:1","epoch":3}}`))
	f.Add([]byte(`{"error":{"kind":"bogus"}}`))
	f.Add([]byte(`{"result":"AQI="} x`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := DecodeReply(body)
		if err != nil {
			return
		}
		again := mustJSON(t, r)
		r2, err := DecodeReply(again)
		if err != nil {
			t.Fatalf("re-encoded reply does not decode: %v\n%s", err, again)
		}
		if b := mustJSON(t, r2); !bytes.Equal(again, b) {
			t.Fatalf("round trip changed the reply:\n%s\n%s", again, b)
		}
	})
}

// FuzzDecodeSecret and FuzzDecodeDeployment read bucket bytes.
func FuzzDecodeSecret(f *testing.F) {
	f.Add([]byte(`{"version":1,"key":"0000000000000000000000000000000000000000000000000000000000000000"}`))
	f.Add([]byte(`{"version":2,"key":""}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := DecodeSecret(body)
		if err == nil && (len(s.Key) != 32 || s.Version != secretVersion) {
			t.Fatalf("accepted %q as %+v", body, s)
		}
	})
}

func FuzzDecodeDeployment(f *testing.F) {
	f.Add([]byte(`{"id":"x","script":"s","entry":"/e.js","code":"1","bindings":[{"name":"A","class":"A"}]}`))
	f.Add([]byte(`{"id":"x","script":"","code":""}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, err := DecodeDeployment(bucketkey.DeploymentKey("x"), body)
		if err == nil && (d.ID != "x" || d.Script == "" || d.Code == "") {
			t.Fatalf("accepted %q as %+v", body, d)
		}
	})
}

// FuzzServer sends arbitrary bodies and headers to a Server: it never
// panics, and nothing unsigned reaches the object. With signed set, the
// head and body signatures are valid for the fuzzed headers and body, so
// the envelope decoder and the object path see arbitrary signed input.
func FuzzServer(f *testing.F) {
	f.Add([]byte(`{"class":"C","id":"abc","req":{"method":"GET","url":"http://x/","header":[]}}`), "2.1", "node_a", "1000000000", "abababababababababababababababab", "00", "00", false)
	f.Add([]byte(`{"class":"C","id":"abc","req":{"method":"GET","url":"http://x/","header":[]}}`), "2.1", "node_a", "1000000000", "abababababababababababababababab", "", "", true)
	f.Fuzz(func(t *testing.T, body []byte, version, node, ts, nonce, sig, head string, signed bool) {
		local := &fakeLocal{fetch: func(string, string, string, *httpmsg.Request) (*httpmsg.Response, error) {
			return &httpmsg.Response{Status: 200}, nil
		}}
		srv := NewServer(ServerConfig{Secret: testSecret(1), Local: local, Now: func() time.Time { return time.UnixMilli(1_000_000_000) }})
		if signed {
			sig = testSecret(1).sign(requestSigningString(PathFetch, node, ts, nonce, body))
			head = testSecret(1).sign(headSigningString(PathFetch, node, ts, nonce, int64(len(body))))
		}
		r := httptest.NewRequest(http.MethodPost, PathFetch, bytes.NewReader(body))
		for k, v := range map[string]string{hdrPeer: version, hdrNode: node, hdrTime: ts, hdrNonce: nonce, hdrSignature: sig, hdrHead: head} {
			r.Header[k] = []string{v}
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if !signed && local.ran.Load() != 0 {
			t.Fatalf("an unsigned request reached the object (status %d)", w.Code)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

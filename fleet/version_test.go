package fleet

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/internal/bucketkey"
)

// A newer node's members are skipped by every peer and bucket decoder of
// fleet; a record or protocol version this node does not know is refused
// with an error that says which side to upgrade.
func TestVersion_UnknownMembersSkipped(t *testing.T) {
	env, err := DecodeEnvelope([]byte(`{"class":"C","id":"i","req":{"method":"GET","url":"http://x/"},"added_later":1}`), false)
	if err != nil || env.Class != "C" || env.Req.URL != "http://x/" {
		t.Fatalf("DecodeEnvelope with an unknown member = %+v, %v", env, err)
	}
	r, err := DecodeReply([]byte(`{"status":200,"added_later":{"a":"b"}}`))
	if err != nil || r.Status != 200 {
		t.Fatalf("DecodeReply with an unknown member = %+v, %v", r, err)
	}
	if _, err := DecodeReply([]byte(`{"error":{"kind":"new_kind"}}`)); err == nil {
		t.Error("an unknown error kind was accepted: it cannot be read safely")
	}
	if _, err := DecodeReply([]byte(`{"status":200} {}`)); err == nil {
		t.Error("trailing data was accepted")
	}
	key := bucketkey.DeploymentKey("20260101T000000.000Z-abcd")
	d, err := DecodeDeployment(key, []byte(`{"id":"20260101T000000.000Z-abcd","script":"s","entry":"e","code":"c","bindings":[],"added_later":true}`))
	if err != nil || d.Script != "s" {
		t.Fatalf("DecodeDeployment with an unknown member = %+v, %v", d, err)
	}
	_, err = DecodeDeployment(key, []byte(`{"format":2,"id":"20260101T000000.000Z-abcd","script":"s","entry":"e","code":"c","bindings":[]}`))
	if err == nil || !strings.Contains(err.Error(), "format 2, written by a newer cellhost (this node reads format 1 and older): upgrade this node") {
		t.Errorf("a format-2 deployment: %v", err)
	}
	s, err := DecodeSecret([]byte(`{"version":1,"key":"` + strings.Repeat("ab", 32) + `","added_later":1}`))
	if err != nil || s.Version != 1 {
		t.Errorf("DecodeSecret with an unknown member = %+v, %v", s, err)
	}
	if _, err := DecodeSecret([]byte(`{"version":2,"key":"` + strings.Repeat("ab", 32) + `"}`)); err == nil || !strings.Contains(err.Error(), "upgrade this node") {
		t.Errorf("a version-2 secret: %v", err)
	}
}

func TestVersion_PeerHeaderErrors(t *testing.T) {
	for _, c := range []struct{ got, want, msg string }{
		{"2.1", "1.1", "peer protocol 2 is newer than this node's 1: upgrade this node"},
		{"1.1", "2.1", "peer protocol 1 is older than this node's 2"},
		{"1.2", "1.1", "fleet secret version 2, this node's is 1"},
		{"x", "1.1", `peer protocol "x", this node speaks "1.1"`},
	} {
		if err := peerVersionError(c.got, c.want); !strings.Contains(err.Error(), c.msg) {
			t.Errorf("peerVersionError(%q, %q) = %v, want %q", c.got, c.want, err, c.msg)
		}
	}
}

// TestVersion_HeadCheckExplains: the check made before a body is read (the
// first a peer request meets) explains a version difference as the full
// check does: a node of a build before peer protocol 2
// (f5e7217, for one) is told which side to upgrade, not only that they differ.
func TestVersion_HeadCheckExplains(t *testing.T) {
	srv := NewServer(ServerConfig{Secret: testSecret(1), Local: echoLocal()})
	r := httptest.NewRequest(http.MethodPost, "/peer/fetch", nil)
	r.Header.Set(hdrPeer, "1.1")
	err := srv.authenticateHead(r)
	if err == nil || !strings.Contains(err.Error(), "peer protocol 1 is older than this node's") || !strings.Contains(err.Error(), "upgrade it") {
		t.Fatalf("authenticateHead with protocol 1 = %v", err)
	}
}

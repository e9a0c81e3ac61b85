package s3store_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/cellhost/cellhost/plugins/s3store"
)

// After an answer, the store names the server that gave it: the Server
// header the S3 server sends on any request (read here with net/http).
func TestServerName_FromTheServer(t *testing.T) {
	u := testURL(t)
	cfg, err := s3store.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s3store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.ServerName(); got != "" {
		t.Fatalf("ServerName before any request = %q", got)
	}
	if _, err := st.Head(context.Background(), "no/such/key"); err == nil {
		t.Fatal("Head of a missing key succeeded")
	}
	resp, err := http.Get(cfg.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := resp.Header.Get("Server")
	if want == "" {
		t.Skip("the S3 server sends no Server header")
	}
	if got := st.ServerName(); got != want {
		t.Errorf("ServerName = %q, want the server's %q", got, want)
	}
	if got := (&s3store.Store{}).ServerName(); got != "" {
		t.Errorf("a store from New names a server: %q", got)
	}
}

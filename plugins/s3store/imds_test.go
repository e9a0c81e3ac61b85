package s3store_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/cellhost/cellhost/plugins/s3store"
)

// TestOpen_ExplicitEndpointNeverAsksIMDS: with an explicit endpoint and no
// credentials, the SDK must not fall back to the EC2 instance metadata
// service (here a local server standing in for 169.254.169.254): the
// request fails on the missing credentials alone.
func TestOpen_ExplicitEndpointNeverAsksIMDS(t *testing.T) {
	var imdsHits atomic.Int32
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		imdsHits.Add(1)
		w.WriteHeader(http.StatusForbidden)
	}))
	defer imds.Close()
	s3srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusForbidden)
	}))
	defer s3srv.Close()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_SHARED_CREDENTIALS_FILE": none, "AWS_CONFIG_FILE": none,
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "",
		"AWS_EC2_METADATA_DISABLED":         "", // the store itself must turn it off
		"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL,
	} {
		t.Setenv(k, v)
	}
	store, err := s3store.Open(context.Background(), s3store.Config{Bucket: "bucket", Endpoint: s3srv.URL, Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, _, err := store.Get(context.Background(), "k"); err == nil {
		t.Fatal("Get without credentials succeeded")
	}
	if n := imdsHits.Load(); n != 0 {
		t.Fatalf("the SDK asked the instance metadata service %d times", n)
	}
}

package s3store_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/s3store"
)

// signedBy runs one Get on a store opened with cfg against a local server
// and returns the access key id of its signature (SigV4's
// "Credential=KEY/date/region/s3/aws4_request").
func signedBy(t *testing.T, cfg s3store.Config) string {
	t.Helper()
	var mu sync.Mutex
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = r.Header.Get("Authorization")
		mu.Unlock()
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	cfg.Bucket, cfg.Endpoint, cfg.Region = "bucket", srv.URL, "us-east-1"
	store, err := s3store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	store.Get(context.Background(), "k")
	mu.Lock()
	defer mu.Unlock()
	_, rest, ok := strings.Cut(auth, "Credential=")
	if !ok {
		t.Fatalf("no SigV4 credential in Authorization %q", auth)
	}
	key, _, _ := strings.Cut(rest, "/")
	return key
}

// TestOpen_ExplicitCredentials: Config's credentials sign the requests in
// place of the environment's, for that store only; without them the
// environment's apply, as before.
func TestOpen_ExplicitCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "ENVKEY")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "envsecret")
	t.Setenv("AWS_SESSION_TOKEN", "")
	if got := signedBy(t, s3store.Config{}); got != "ENVKEY" {
		t.Errorf("no explicit credentials: signed by %q, want the environment's ENVKEY", got)
	}
	if got := signedBy(t, s3store.Config{AccessKeyID: "CFGKEY", SecretAccessKey: "cfgsecret"}); got != "CFGKEY" {
		t.Errorf("explicit credentials: signed by %q, want CFGKEY", got)
	}
	if got := os.Getenv("AWS_ACCESS_KEY_ID"); got != "ENVKEY" {
		t.Errorf("the environment changed: AWS_ACCESS_KEY_ID=%q", got)
	}
}

func TestOpen_ExplicitCredentialsIncomplete(t *testing.T) {
	for _, cfg := range []s3store.Config{
		{Bucket: "bucket", AccessKeyID: "KEY"},
		{Bucket: "bucket", SecretAccessKey: "secret"},
		{Bucket: "bucket", SessionToken: "token"},
	} {
		_, err := s3store.Open(context.Background(), cfg)
		if want := "open s3 store: explicit credentials need both AccessKeyID and SecretAccessKey (or neither, for the environment's)"; err == nil || err.Error() != want {
			t.Errorf("Open(%v) = %v, want %q", cfg, err, want)
		}
	}
}

// TestConfig_StringHidesSecrets: a logged Config shows the key id, never
// the secret or the token.
func TestConfig_StringHidesSecrets(t *testing.T) {
	cfg := s3store.Config{Bucket: "b", AccessKeyID: "KEYID", SecretAccessKey: "s3cr3t", SessionToken: "t0ken"}
	for _, s := range []string{cfg.String(), fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg)} {
		if strings.Contains(s, "s3cr3t") || strings.Contains(s, "t0ken") || !strings.Contains(s, "KEYID") {
			t.Errorf("%s", s)
		}
	}
}

// TestOpen_ExplicitCredentialsOnTheServer: on the real S3 server, the
// server's credentials passed in Config work while the environment holds
// wrong ones (and, as a check of the check, the wrong ones are refused).
func TestOpen_ExplicitCredentialsOnTheServer(t *testing.T) {
	u := testURL(t)
	access, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if access == "" || secret == "" {
		t.Skip("the S3 server's credentials are not in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "WRONG"+access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	t.Setenv("AWS_SESSION_TOKEN", "")
	v := *u
	v.Path = strings.TrimSuffix(v.Path, "/") + fmt.Sprintf("/test-%s/creds", runID)
	cfg, err := s3store.ParseURL(&v)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wrong, err := s3store.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	if _, err := wrong.Put(ctx, "k", []byte("v"), plugins.PutOptions{}); err == nil {
		t.Fatal("a Put signed with the environment's wrong credentials succeeded")
	}
	cfg.AccessKeyID, cfg.SecretAccessKey = access, secret
	right, err := s3store.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer right.Close()
	if _, err := right.Put(ctx, "k", []byte("v"), plugins.PutOptions{}); err != nil {
		t.Fatalf("Put with explicit credentials: %v", err)
	}
	defer right.Delete(ctx, "k", "")
	if body, _, err := right.Get(ctx, "k"); err != nil || string(body) != "v" {
		t.Fatalf("Get with explicit credentials: %q %v", body, err)
	}
}

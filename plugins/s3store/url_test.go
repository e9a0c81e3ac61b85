package s3store_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/s3store"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url  string
		want s3store.Config
	}{
		{"s3://bucket", s3store.Config{Bucket: "bucket"}},
		{"s3://bucket/", s3store.Config{Bucket: "bucket"}},
		{"s3://my-bucket.v2/cellhost/prod/", s3store.Config{Bucket: "my-bucket.v2", Prefix: "cellhost/prod"}},
		{"s3://b_b/p%20q", s3store.Config{Bucket: "b_b", Prefix: "p q"}},
		{"s3://bkt/p?endpoint=http://127.0.0.1:7070&region=us-east-1&path_style=true", s3store.Config{
			Bucket: "bkt", Prefix: "p", Endpoint: "http://127.0.0.1:7070", Region: "us-east-1", PathStyle: s3store.PathStyleOn,
		}},
		{"s3://bkt?endpoint=https%3A%2F%2Facct.r2.cloudflarestorage.com&region=auto&path_style=0&profile=r2", s3store.Config{
			Bucket: "bkt", Endpoint: "https://acct.r2.cloudflarestorage.com", Region: "auto", PathStyle: s3store.PathStyleOff, Profile: "r2",
		}},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s3store.ParseURL(u)
		if err != nil {
			t.Errorf("ParseURL(%q) = %v", tt.url, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseURL(%q) = %+v, want %+v", tt.url, got, tt.want)
		}
	}
}

func TestParseURL_Errors(t *testing.T) {
	tests := []struct {
		url, want string // want: a substring of the error
	}{
		{"s3:bucket/p", "want s3://BUCKET/PREFIX"},
		{"s3:///prefix", "missing bucket name"},
		{"s3://", "missing bucket name"},
		{"s3://key:secret@bucket/p", "credentials in the url are not supported"},
		{"s3://bucket:9000/p", "has a port"},
		{"s3://Bucket/p", `bucket name "Bucket"`},
		{"s3://ab/p", `bucket name "ab"`},
		{"s3://-bucket/p", `bucket name "-bucket"`},
		{"s3://bucket/a//b", "key prefix"},
		{"s3://bucket/a/../b", "key prefix"},
		{"s3://bucket/p#frag", "fragment"},
		{"s3://bucket/p?endpoint=127.0.0.1:7070", "endpoint"},
		{"s3://bucket/p?endpoint=ftp://host", "endpoint"},
		{"s3://bucket/p?endpoint=http://", "endpoint"},
		{"s3://bucket/p?region=", "empty region"},
		{"s3://bucket/p?path_style=yes", "path_style"},
		{"s3://bucket/p?profile=", "empty profile"},
		{"s3://bucket/p?region=a&region=b", `"region" given 2 times`},
		{"s3://bucket/p?endpiont=http://x", `unknown parameter "endpiont"`},
		{"s3://bucket/p?a=%zz", "query"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatalf("url.Parse(%q) = %v", tt.url, err)
		}
		_, err = s3store.ParseURL(u)
		if !errors.Is(err, s3store.ErrInvalidURL) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseURL(%q) error = %v, want ErrInvalidURL saying %q", tt.url, err, tt.want)
		}
	}
}

func TestOpenStore_Registered(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "k")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "s")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_PROFILE", "")
	ctx := context.Background()
	s, err := plugins.OpenStore(ctx, "s3://bucket/prefix?endpoint=http://127.0.0.1:1")
	if err != nil {
		t.Fatalf("OpenStore() = %v", err)
	}
	s.Close()
	_, err = plugins.OpenStore(ctx, "s3://bucket/prefix?bogus=1")
	if !errors.Is(err, s3store.ErrInvalidURL) || !strings.Contains(err.Error(), `open s3 bucket "s3://bucket/prefix?bogus=1"`) {
		t.Errorf("OpenStore(bad url) error = %v, want ErrInvalidURL naming the url", err)
	}
	_, err = plugins.OpenStore(ctx, "s3://bucket/prefix?profile=cellhost-no-such-profile")
	if err == nil || !strings.Contains(err.Error(), "cellhost-no-such-profile") {
		t.Errorf("OpenStore(missing profile) error = %v, want an error naming the profile", err)
	}
}

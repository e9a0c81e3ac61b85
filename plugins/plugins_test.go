package plugins_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/plugins"
	_ "github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/memstore"
)

func wantPanic(t *testing.T, name string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", name)
		}
	}()
	fn()
}

func TestRegisterStore(t *testing.T) {
	open := func(context.Context, *url.URL) (plugins.ObjectStore, error) { return memstore.New(), nil }
	wantPanic(t, "duplicate RegisterStore", func() { plugins.RegisterStore("mem", open) })
	for _, scheme := range []string{"", "S3", "3s", "a.b", "a-b"} {
		wantPanic(t, fmt.Sprintf("RegisterStore(%q)", scheme), func() { plugins.RegisterStore(scheme, open) })
	}
}

func TestOpenStore(t *testing.T) {
	ctx := context.Background()
	s, err := plugins.OpenStore(ctx, "mem://open-store-test")
	if err != nil {
		t.Fatalf("OpenStore(mem://...) = %v", err)
	}
	s.Close()

	tests := []struct {
		url, want string
	}{
		{"x://bucket/prefix", `unknown bucket scheme "x" in "x://bucket/prefix": known schemes are file, mem`},
		{"X://bucket", `unknown bucket scheme "x" in "x://bucket": known schemes are file, mem`},
		{"/just/a/path", `missing bucket scheme in "/just/a/path": known schemes are file, mem`},
		{"s3://key:secret@bucket", `unknown bucket scheme "s3" in "s3://key:xxxxx@bucket": known schemes are file, mem`},
	}
	for _, tt := range tests {
		_, err := plugins.OpenStore(ctx, tt.url)
		var use *plugins.UnknownSchemeError
		if !errors.As(err, &use) {
			t.Errorf("OpenStore(%q) error = %v, want an UnknownSchemeError", tt.url, err)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("OpenStore(%q) error = %q, want %q", tt.url, got, tt.want)
		}
	}
	if _, err := plugins.OpenStore(ctx, "file://"); err == nil {
		t.Errorf("OpenStore(file://) = nil, want an error")
	}
}

func TestCheckKey(t *testing.T) {
	for _, key := range []string{"a", "a/b", "cells/Counter:00ff/own.json", "node-cells/n/g/C:1", ".hidden/x", "a/...", "ünï/😀"} {
		if err := plugins.CheckKey(key); err != nil {
			t.Errorf("CheckKey(%q) = %v, want nil", key, err)
		}
	}
	for _, key := range []string{"", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", "a\x00b", "\xff", strings.Repeat("k", plugins.MaxKeyLen+1)} {
		if err := plugins.CheckKey(key); !errors.Is(err, plugins.ErrInvalidKey) {
			t.Errorf("CheckKey(%.20q) = %v, want ErrInvalidKey", key, err)
		}
	}
}

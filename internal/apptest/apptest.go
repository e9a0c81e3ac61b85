// Package apptest serves a wrangler project on a real host for tests, as
// `cellhost dev` does: cells in SQLite files and bindings in a file bucket,
// all under the test's temporary directory. Tests only: it takes a
// testing.TB and fails the test on any error.
package apptest

import (
	"context"
	"io"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/cellhost/cellhost/bindings/binding"
	_ "github.com/cellhost/cellhost/bindings/standard" // the standard binding plugins
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

// BindPlugins binds cfg's bindings through the binding plugins
// (bindings/binding), as cellhost dev does: their resources in a fresh
// bucket under stateDir, internal cells (D1 databases) in the host.
func BindPlugins(t testing.TB, cfg *wrangler.Config, hc *host.Config, stateDir string) {
	t.Helper()
	res := binding.NewResources(stateDir, nil, func() (plugins.ObjectStore, error) {
		return filestore.New(filepath.Join(stateDir, "bucket"))
	})
	t.Cleanup(res.Close)
	if err := project.BindPlugins(cfg, res, hc); err != nil {
		t.Fatal(err)
	}
}

// Serve serves the project in dir on a real Host over an httptest server
// (closed, with the host, when the test ends) and returns its URL.
func Serve(t testing.TB, dir string) string {
	t.Helper()
	cfg, err := wrangler.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := project.HostConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	hc.StateDir = filepath.Join(state, "cells")
	hc.Log = io.Discard
	BindPlugins(t, cfg, &hc, state)
	h, err := host.New(hc)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Close(ctx)
	})
	return srv.URL
}

package main

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strconv"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
)

// startPprof serves Go's profiler on the address in CELLHOST_PPROF (for
// example 127.0.0.1:6060), for profiling a server under real load. It is
// off unless that variable is set; the handlers live on their own mux so
// that nothing reaches them through the Durable Object front.
func startPprof() {
	addr := os.Getenv("CELLHOST_PPROF")
	if addr == "" {
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "CELLHOST_PPROF=%s: %v\n", addr, err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/jsprofile", jsProfile)
	fmt.Fprintf(os.Stderr, "pprof on http://%s/debug/pprof/\n", ln.Addr())
	go func() { _ = http.Serve(ln, mux) }()
}

// jsProfile samples the JavaScript call stacks of every runtime (goja's
// profiler, 10 ms period) for ?seconds=N (default 10, at most 300) and
// writes them in pprof format: `go tool pprof -top URL` names the JS
// functions where the worker and its objects spend their time.
func jsProfile(w http.ResponseWriter, r *http.Request) {
	secs := 10
	if v := r.URL.Query().Get("seconds"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 300 {
			http.Error(w, "seconds must be an integer from 1 to 300", http.StatusBadRequest)
			return
		}
		secs = n
	}
	var buf bytes.Buffer
	if err := goja.StartProfile(&buf); err != nil {
		http.Error(w, "a JavaScript profile is already running: "+err.Error(), http.StatusConflict)
		return
	}
	select {
	case <-time.After(time.Duration(secs) * time.Second):
	case <-r.Context().Done():
	}
	goja.StopProfile()
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(buf.Bytes())
}

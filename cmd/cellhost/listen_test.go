package main

import (
	"net"
	"testing"
)

// TestListenPortInUseMessage: listening on a port another listener holds
// gives the actionable message (errAddrInUse matches the OS's error).
func TestListenPortInUseMessage(t *testing.T) {
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	addr := held.Addr().String()
	ln, err := listenTCP(addr, "--listen")
	if err == nil {
		ln.Close()
		t.Fatalf("listenTCP(%s) while the port is held: no error", addr)
	}
	want := "cannot listen on " + addr + ": the port is in use by another program; stop it or pass --listen"
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

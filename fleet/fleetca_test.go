package fleet

import (
	"context"
	"crypto/tls"
	"io"

	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// handshake runs a TLS handshake between the two configurations over
// loopback and returns the client's error (the server's too, if any).
func handshake(t *testing.T, server, client *tls.Config) error {
	t.Helper()
	ln, err := tls.Listen("tcp", "127.0.0.1:0", server)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		err = c.(*tls.Conn).Handshake()
		if err == nil {
			_, err = c.Write([]byte("ok"))
		}
		served <- err
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), client)
	if err == nil {
		buf := make([]byte, 2)
		_, err = io.ReadFull(c, buf)
		c.Close()
	}
	if serr := <-served; err == nil && serr != nil {
		err = serr
	}
	return err
}

// The first node creates the CA, the next reads the same one; two nodes'
// certificates complete a mutual TLS handshake; a node of another fleet
// (another CA) is refused both ways.
func TestFleetCA_MutualTLS(t *testing.T) {
	ctx := context.Background()
	store := memstore.New()
	ca1, err := LoadFleetCA(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	ca2, err := LoadFleetCA(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	if !ca1.Cert.Equal(ca2.Cert) {
		t.Fatal("the second node read another CA")
	}
	now := time.Now()
	aSrv, _, err := ca1.NodeTLS("node_a", "127.0.0.1:7001", now)
	if err != nil {
		t.Fatal(err)
	}
	_, bCli, err := ca2.NodeTLS("node_b", "127.0.0.1:7002", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, aSrv, bCli); err != nil {
		t.Fatalf("two nodes of one fleet: %v", err)
	}
	other, err := LoadFleetCA(ctx, memstore.New())
	if err != nil {
		t.Fatal(err)
	}
	oSrv, oCli, err := other.NodeTLS("node_o", "127.0.0.1:7003", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := handshake(t, aSrv, oCli); err == nil {
		t.Error("a node of another fleet was accepted")
	}
	if err := handshake(t, oSrv, bCli); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("dialing a node of another fleet: %v, want a certificate error", err)
	}
	// A certificate is for the advertise host only.
	_, cli, _ := ca1.NodeTLS("node_c", "127.0.0.1:7004", now)
	srv, _, _ := ca1.NodeTLS("node_d", "10.9.9.9:7005", now)
	if err := handshake(t, srv, cli); err == nil {
		t.Error("a certificate for 10.9.9.9 was accepted at 127.0.0.1")
	}
	if _, _, err := ca1.NodeTLS("node_e", "no-port", now); err == nil {
		t.Error("an advertise address without a port was accepted")
	}
}

func TestDecodeFleetCA_Refuses(t *testing.T) {
	_, rec, err := newFleetCA(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeFleetCA(rec); err != nil {
		t.Fatal(err)
	}
	_, other, _ := newFleetCA(time.Now())
	mixed := strings.Replace(string(rec), string(rec[strings.Index(string(rec), `"key"`):]), string(other[strings.Index(string(other), `"key"`):]), 1)
	for name, body := range map[string]string{
		"version":  strings.Replace(string(rec), `"version":1`, `"version":2`, 1),
		"garbage":  `{"version":1,"cert":"x","key":"y"}`,
		"mismatch": mixed,
		"empty":    ``,
		"big":      strings.Repeat(" ", maxFleetCARecord+1),
	} {
		if _, err := DecodeFleetCA([]byte(body)); err == nil || !strings.HasPrefix(err.Error(), "decode "+bucketkey.FleetCAKey+": ") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzDecodeFleetCA(f *testing.F) {
	_, rec, err := newFleetCA(time.Now())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(rec)
	f.Add([]byte(`{"version":1,"cert":"","key":""}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ca, err := DecodeFleetCA(b)
		if err == nil && (ca.Cert == nil || ca.key == nil || !ca.Cert.IsCA) {
			t.Fatalf("accepted a record without a CA certificate and key: %q", b)
		}
	})
}

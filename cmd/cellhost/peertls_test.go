package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCA is a CA that issues node certificates for 127.0.0.1.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  string // file
}

func newTestCA(t *testing.T, dir, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ca := &testCA{cert: cert, key: key, pem: filepath.Join(dir, name+"-ca.pem")}
	writePEM(t, ca.pem, "CERTIFICATE", der)
	return ca
}

// issue writes a node certificate and key for 127.0.0.1 (server and
// client use) and returns their files.
func (ca *testCA) issue(t *testing.T, dir, name string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", kder)
	return certFile, keyFile
}

func writePEM(t *testing.T, file, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPeerTLS_MutualTLSFleet runs nodes whose internal listeners speak only
// TLS with certificates of one fleet CA (mutual TLS): a request through
// the node that does not own the object is forwarded over TLS and counts;
// a plain-HTTP client, a TLS client without a certificate, and a node with
// a certificate of another CA are refused, and that node's request does not
// reach the object.
func TestPeerTLS_MutualTLSFleet(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := fleetBinary(t)
	dir := t.TempDir()
	bucket := "file://" + filepath.Join(dir, "bucket")
	fleetCA, otherCA := newTestCA(t, dir, "fleet"), newTestCA(t, dir, "other")
	node := func(name string, ca *testCA) *serveNode {
		cert, key := ca.issue(t, dir, name)
		return startServe(t, bin, counterProject(t), "--bucket", bucket, "--state", filepath.Join(dir, name),
			"--internal-listen", "127.0.0.1:0", "--internal-tls-cert", cert, "--internal-tls-key", key, "--internal-tls-ca", ca.pem)
	}
	a := node("a", fleetCA)
	b := node("b", fleetCA)
	client := &http.Client{Timeout: 60 * time.Second}
	if code, r, raw, err := getCounter(client, a.base+"/do/Counter/tls"); err != nil || code != 200 || r.N != 1 {
		t.Fatalf("a: %d %q %v", code, raw, err)
	}
	if code, r, raw, err := getCounter(client, b.base+"/do/Counter/tls"); err != nil || code != 200 || r.N != 2 {
		t.Fatalf("b (forwarded to a over TLS): %d %q %v", code, raw, err)
	}
	store := openBucket(t, bucket)
	if rec := ownerOf(t, store, "tls"); rec.Node != a.id {
		t.Fatalf("own.json names %s, want a (%s): b served it itself", rec.Node, a.id)
	}

	peer := a.peerAddr(t)
	// Plain HTTP to a TLS listener: no answer from the node's handlers.
	if resp, err := http.Get("http://" + peer + "/healthz"); err == nil {
		body := make([]byte, 64)
		n, _ := resp.Body.Read(body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Errorf("plain HTTP to the TLS internal listener answered 200 %q", body[:n])
		}
	}
	// TLS without a client certificate: refused by mutual TLS.
	pool := x509.NewCertPool()
	pool.AddCert(fleetCA.cert)
	noCert := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if resp, err := noCert.Get("https://" + peer + "/healthz"); err == nil {
		resp.Body.Close()
		t.Errorf("a TLS client without a certificate got %s", resp.Status)
	}

	// A node with a certificate of another CA joins the bucket but cannot
	// reach a: its request for a's object fails and never runs there.
	c := node("c", otherCA)
	code, _, raw, err := getCounter(client, c.base+"/do/Counter/tls")
	if err == nil && code == 200 {
		t.Fatalf("c, with another CA's certificate, was answered through a: %q", raw)
	}
	if code, r, raw, err := getCounter(client, a.base+"/do/Counter/tls?peek=1"); err != nil || code != 200 || r.N != 2 {
		t.Fatalf("after c's attempt, a reads %d %q %v, want n=2", code, raw, err)
	}
	if !strings.Contains(a.logs.String()+c.logs.String(), "certificate") {
		t.Errorf("neither a's nor c's log names the certificate:\n--- a\n%s\n--- c\n%s", a.logs, c.logs)
	}
	t.Logf("c's request: %d %q", code, strings.TrimSpace(raw))
}

// TestPeerTLS_FleetCA runs nodes with --internal-tls-fleet-ca: the first
// makes the fleet CA in the bucket, each issues itself a certificate, and
// a request through the non-owner is forwarded over mutual TLS; plain HTTP
// to the internal listener and a node with a certificate of another CA are
// refused.
func TestPeerTLS_FleetCA(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := fleetBinary(t)
	dir := t.TempDir()
	bucket := "file://" + filepath.Join(dir, "bucket")
	node := func(name string, tlsArgs ...string) *serveNode {
		return startServe(t, bin, append([]string{counterProject(t), "--bucket", bucket, "--state", filepath.Join(dir, name)}, tlsArgs...)...)
	}
	a := node("a", "--internal-tls-fleet-ca")
	b := node("b", "--internal-tls-fleet-ca")
	client := &http.Client{Timeout: 60 * time.Second}
	if code, r, raw, err := getCounter(client, a.base+"/do/Counter/ca"); err != nil || code != 200 || r.N != 1 {
		t.Fatalf("a: %d %q %v", code, raw, err)
	}
	if code, r, raw, err := getCounter(client, b.base+"/do/Counter/ca"); err != nil || code != 200 || r.N != 2 {
		t.Fatalf("b (forwarded to a over the fleet CA's TLS): %d %q %v", code, raw, err)
	}
	if rec := ownerOf(t, openBucket(t, bucket), "ca"); rec.Node != a.id {
		t.Fatalf("own.json names %s, want a", rec.Node)
	}
	if resp, err := http.Get("http://" + a.peerAddr(t) + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("plain HTTP to a fleet-CA TLS listener answered 200")
		}
	}
	other := newTestCA(t, dir, "other")
	cert, key := other.issue(t, dir, "c")
	c := node("c", "--internal-tls-cert", cert, "--internal-tls-key", key, "--internal-tls-ca", other.pem)
	if code, _, raw, err := getCounter(client, c.base+"/do/Counter/ca"); err == nil && code == 200 {
		t.Fatalf("a node with another CA's certificate was answered through a: %q", raw)
	}
	if code, r, raw, err := getCounter(client, a.base+"/do/Counter/ca?peek=1"); err != nil || code != 200 || r.N != 2 {
		t.Fatalf("after c's attempt: %d %q %v, want n=2", code, raw, err)
	}
}

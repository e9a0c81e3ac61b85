package node

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// FuzzParseKey feeds arbitrary bytes to KeyObject parsing (PEM and every
// DER type), export and X509Certificate: bad input is a JS error (a
// *goja.Object thrown), never a Go runtime panic.
func FuzzParseKey(f *testing.F) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	for _, k := range []any{ec, ed} {
		b, _ := x509.MarshalPKCS8PrivateKey(k)
		f.Add(b)
		f.Add(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: b}))
	}
	sec1, _ := x509.MarshalECPrivateKey(ec)
	f.Add(sec1)
	spki, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	f.Add(spki)
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"))
	rt := goja.New()
	f.Fuzz(func(t *testing.T, raw []byte) {
		try := func(fn func()) {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(*goja.Object); !ok {
						t.Fatalf("Go panic: %v", r)
					}
				}
			}()
			fn()
		}
		for _, kind := range []string{"public", "private"} {
			for _, c := range [][2]string{{"pem", ""}, {"der", "pkcs8"}, {"der", "spki"}, {"der", "pkcs1"}, {"der", "sec1"}} {
				try(func() {
					k := parseKey(rt, kind, raw, c[0], c[1], nil)
					for _, e := range [][2]string{{"pem", ""}, {"der", "pkcs1"}, {"der", "sec1"}, {"jwk", ""}} {
						try(func() { exportKey(rt, k, e[0], e[1]) })
					}
					try(func() { keyDetails(rt, k) })
				})
			}
		}
		if crt, err := parseCertificate(raw); err == nil {
			_ = rdnText(crt.RawSubject)
			_, _ = subjectAltName(crt)
			_, _ = infoAccess(crt)
		}
	})
}

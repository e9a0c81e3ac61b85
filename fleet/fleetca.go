package fleet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// The fleet CA (serve --internal-tls-fleet-ca): a CA certificate and key
// kept in the bucket at bucketkey.FleetCAKey, created by the first node
// (If-None-Match: *) as the fleet secret is. Each node issues itself a
// certificate for its advertise address at start and requires every peer
// to present one the CA issued: mutual TLS without distributing files. It
// trusts whoever can read the bucket, as the fleet secret does: it adds
// confidentiality and authenticated connections, the secret's signature
// still authorizes each request.

// fleetCAVersion is the format of the CA record this node reads and writes.
const fleetCAVersion = 1

// maxFleetCARecord bounds the record read from the bucket.
const maxFleetCARecord = 16 << 10

type fleetCARecord struct {
	Version int    `json:"version"`
	Cert    string `json:"cert"` // PEM CERTIFICATE
	Key     string `json:"key"`  // PEM PRIVATE KEY (PKCS #8)
}

// FleetCA is the fleet's CA.
type FleetCA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// DecodeFleetCA decodes the record at bucketkey.FleetCAKey: a known
// version, one CA certificate and its ECDSA key, which must match.
func DecodeFleetCA(body []byte) (*FleetCA, error) {
	fail := func(format string, args ...any) (*FleetCA, error) {
		return nil, fmt.Errorf("decode %s: "+format, append([]any{bucketkey.FleetCAKey}, args...)...)
	}
	if len(body) > maxFleetCARecord {
		return fail("%d bytes, more than %d", len(body), maxFleetCARecord)
	}
	var rec fleetCARecord
	if err := decodeStrict(body, &rec); err != nil {
		return fail("%v", err)
	}
	if rec.Version != fleetCAVersion {
		return fail("version %d, this cellhost knows %d: upgrade this node", rec.Version, fleetCAVersion)
	}
	cb, _ := pem.Decode([]byte(rec.Cert))
	if cb == nil || cb.Type != "CERTIFICATE" {
		return fail("cert is not a PEM CERTIFICATE")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return fail("cert: %v", err)
	}
	if !cert.IsCA {
		return fail("cert is not a CA certificate")
	}
	kb, _ := pem.Decode([]byte(rec.Key))
	if kb == nil || kb.Type != "PRIVATE KEY" {
		return fail("key is not a PEM PRIVATE KEY")
	}
	k, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return fail("key: %v", err)
	}
	key, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		return fail("key is not an ECDSA key")
	}
	if pub, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return fail("key does not match cert")
	}
	return &FleetCA{Cert: cert, key: key}, nil
}

// newFleetCA makes a CA valid for ten years and its record.
func newFleetCA(now time.Time) (*FleetCA, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(), Subject: pkix.Name{CommonName: "cellhost fleet CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0),
		IsCA: true, BasicConstraintsValid: true, MaxPathLenZero: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	rec, err := json.Marshal(fleetCARecord{Version: fleetCAVersion,
		Cert: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		Key:  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))})
	if err != nil {
		return nil, nil, err
	}
	ca, err := DecodeFleetCA(rec)
	return ca, rec, err
}

func randomSerial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

// LoadFleetCA reads the fleet CA, creating it (If-None-Match: *) when the
// bucket has none: the first node creates it, every other reads the
// winner's. An ambiguous create is settled by reading.
func LoadFleetCA(ctx context.Context, store Store) (*FleetCA, error) {
	for range 3 {
		body, _, err := store.Get(ctx, bucketkey.FleetCAKey)
		if err == nil {
			return DecodeFleetCA(body)
		}
		if !errors.Is(err, plugins.ErrNotFound) {
			return nil, fmt.Errorf("read %s: %w", bucketkey.FleetCAKey, err)
		}
		ca, rec, err := newFleetCA(time.Now())
		if err != nil {
			return nil, err
		}
		if _, err = store.Put(ctx, bucketkey.FleetCAKey, rec, plugins.PutOptions{IfNoneMatch: true}); err == nil {
			return ca, nil
		}
	}
	return nil, fmt.Errorf("create %s: gave up after 3 attempts", bucketkey.FleetCAKey)
}

// NodeTLS issues this node a certificate for the host of its advertise
// address (an IP or a DNS name), valid for a year, and returns the TLS
// configurations of its internal listener (which requires a peer
// certificate the CA issued) and of its peer client (which presents the
// certificate and verifies peers against the CA).
func (ca *FleetCA) NodeTLS(node, advertise string, now time.Time) (server, client *tls.Config, err error) {
	host, _, err := net.SplitHostPort(advertise)
	if err != nil {
		return nil, nil, fmt.Errorf("advertise address %q: %w", advertise, err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: randomSerial(), Subject: pkix.Name{CommonName: node},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, err
	}
	pair := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	server = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair},
		ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}
	client = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}, RootCAs: pool}
	return server, client, nil
}

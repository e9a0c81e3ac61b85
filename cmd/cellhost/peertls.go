package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/spf13/cobra"
)

// peerTLSOptions put the internal listener (peer traffic) on TLS, with Go's
// crypto/tls: a node certificate and key, and optionally the fleet's CA,
// which makes it mutual: a node then accepts only peers presenting a
// certificate the CA issued, and verifies the peers it dials against it.
// The fleet secret's signature still authorizes every request.
type peerTLSOptions struct {
	cert, key, ca string
	fleetCA       bool // --internal-tls-fleet-ca
}

func (o *peerTLSOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.cert, "internal-tls-cert", "", "PEM certificate of this node for the internal listener (peer traffic over TLS; every node of the fleet needs one)")
	f.StringVar(&o.key, "internal-tls-key", "", "PEM private key of --internal-tls-cert")
	f.BoolVar(&o.fleetCA, "internal-tls-fleet-ca", false, "mutual TLS with the fleet's own CA, kept in the bucket (cellhost/fleet-ca.json, made by the first node): each node issues itself a certificate for its --advertise host at start; every node of the fleet needs this flag")
	f.StringVar(&o.ca, "internal-tls-ca", "", "PEM CA certificate(s) of the fleet: peers must present a certificate it issued (mutual TLS), and the peers dialed are verified against it (default: the system roots, no client certificates)")
}

// configs returns the server and client TLS configurations, both nil when
// no TLS flag is set, and the reload that re-reads the certificate, key
// and CA files (serve calls it on SIGHUP). Both configurations read the
// material loaded last at each handshake, so a reload takes effect for new
// connections while open ones carry on: rotate a node's certificate, or
// the fleet's CA, without dropping a connection. During a CA rotation the
// CA file holds both CAs (old and new, one PEM after the other): a node
// then accepts peers of either while their certificates are reissued.
func (o peerTLSOptions) configs() (server, client *tls.Config, reload func() error, err error) {
	if o.cert == "" && o.key == "" && o.ca == "" {
		return nil, nil, nil, nil
	}
	if o.fleetCA {
		return nil, nil, nil, errors.New("--internal-tls-fleet-ca issues the node's certificate itself: leave out --internal-tls-cert, --internal-tls-key and --internal-tls-ca")
	}
	if o.cert == "" || o.key == "" {
		return nil, nil, nil, errors.New("--internal-tls-cert and --internal-tls-key go together (and --internal-tls-ca needs both)")
	}
	var cur atomic.Pointer[peerTLSMaterial]
	reload = func() error {
		m, err := o.load()
		if err != nil {
			return err // the material loaded before stays in use
		}
		cur.Store(m)
		return nil
	}
	if err := reload(); err != nil {
		return nil, nil, nil, err
	}
	server = &tls.Config{MinVersion: tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			m := cur.Load()
			c := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{m.pair}}
			if m.pool != nil {
				c.ClientCAs, c.ClientAuth = m.pool, tls.RequireAndVerifyClientCert
			}
			return c, nil
		}}
	client = &tls.Config{MinVersion: tls.VersionTLS12,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			m := cur.Load()
			return &m.pair, nil
		}}
	if o.ca != "" {
		// crypto/tls reads RootCAs once per Config; to verify against the
		// CAs loaded last, the client checks the chain itself, as
		// crypto/tls would (same x509.Verify, host name and key usage):
		// InsecureSkipVerify only hands the check to VerifyConnection.
		client.InsecureSkipVerify = true
		client.VerifyConnection = func(cs tls.ConnectionState) error {
			return verifyPeer(cs, cur.Load().pool)
		}
	}
	return server, client, reload, nil
}

// peerTLSMaterial is what the files held at the last (re)load.
type peerTLSMaterial struct {
	pair tls.Certificate
	pool *x509.CertPool // nil without --internal-tls-ca
}

func (o peerTLSOptions) load() (*peerTLSMaterial, error) {
	pair, err := tls.LoadX509KeyPair(o.cert, o.key)
	if err != nil {
		return nil, fmt.Errorf("--internal-tls-cert %s / --internal-tls-key %s: %w", o.cert, o.key, err)
	}
	m := &peerTLSMaterial{pair: pair}
	if o.ca != "" {
		pem, err := os.ReadFile(o.ca)
		if err != nil {
			return nil, fmt.Errorf("--internal-tls-ca: %w", err)
		}
		m.pool = x509.NewCertPool()
		if !m.pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--internal-tls-ca %s: no PEM certificate in it", o.ca)
		}
	}
	return m, nil
}

// verifyPeer verifies the server certificate chain of cs against roots
// for cs.ServerName, as crypto/tls's own verification does.
func verifyPeer(cs tls.ConnectionState, roots *x509.CertPool) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("tls: the peer sent no certificate")
	}
	opts := x509.VerifyOptions{Roots: roots, DNSName: cs.ServerName, Intermediates: x509.NewCertPool(),
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, c := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	_, err := cs.PeerCertificates[0].Verify(opts)
	return err
}

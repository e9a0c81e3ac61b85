package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

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
// no TLS flag is set.
func (o peerTLSOptions) configs() (server, client *tls.Config, err error) {
	if o.cert == "" && o.key == "" && o.ca == "" {
		return nil, nil, nil
	}
	if o.fleetCA {
		return nil, nil, errors.New("--internal-tls-fleet-ca issues the node's certificate itself: leave out --internal-tls-cert, --internal-tls-key and --internal-tls-ca")
	}
	if o.cert == "" || o.key == "" {
		return nil, nil, errors.New("--internal-tls-cert and --internal-tls-key go together (and --internal-tls-ca needs both)")
	}
	pair, err := tls.LoadX509KeyPair(o.cert, o.key)
	if err != nil {
		return nil, nil, fmt.Errorf("--internal-tls-cert %s / --internal-tls-key %s: %w", o.cert, o.key, err)
	}
	server = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}
	client = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}
	if o.ca != "" {
		pem, err := os.ReadFile(o.ca)
		if err != nil {
			return nil, nil, fmt.Errorf("--internal-tls-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, nil, fmt.Errorf("--internal-tls-ca %s: no PEM certificate in it", o.ca)
		}
		server.ClientCAs, server.ClientAuth = pool, tls.RequireAndVerifyClientCert
		client.RootCAs = pool
	}
	return server, client, nil
}

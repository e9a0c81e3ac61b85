package fleet

import (
	"crypto/tls"
	"net/http"
)

// SetTLS makes the Client reach peers over TLS with cfg (its RootCAs
// verify the peers' certificates; its Certificates, when set, are presented
// for mutual TLS). The fleet secret's signature stays what authorizes a
// request: TLS adds confidentiality and, with a fleet CA, authentication of
// the connection. Call it before the first request.
func (c *Client) SetTLS(cfg *tls.Config) {
	c.tls = cfg.Clone()
	if tr, ok := c.http.Transport.(*http.Transport); ok {
		tr.TLSClientConfig = c.tls
	}
}

// scheme is plain ("http", "ws") or its TLS form.
func (c *Client) scheme(plain string) string {
	if c.tls == nil {
		return plain
	}
	return plain + "s"
}

// tlsConfig is a copy of the TLS configuration for one dialer, nil without
// TLS.
func (c *Client) tlsConfig() *tls.Config {
	if c.tls == nil {
		return nil
	}
	return c.tls.Clone()
}

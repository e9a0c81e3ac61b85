package node

// node:crypto's X509Certificate on crypto/x509, with OpenSSL's text forms
// (subject lines, "Jan  1 00:00:00 2026 GMT", colon fingerprints) as
// workerd prints them.

import (
	"bytes"
	"crypto"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/buffer"
)

var rdnNames = map[string]string{
	"2.5.4.6": "C", "2.5.4.8": "ST", "2.5.4.7": "L", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.3": "CN",
	"2.5.4.5": "serialNumber", "2.5.4.9": "street", "2.5.4.17": "postalCode", "2.5.4.4": "SN", "2.5.4.42": "GN",
	"2.5.4.12": "title", "1.2.840.113549.1.9.1": "emailAddress", "0.9.2342.19200300.100.1.25": "DC",
	"0.9.2342.19200300.100.1.1": "UID", "2.5.4.46": "dnQualifier", "2.5.4.65": "pseudonym",
}

// rdnText is a name as OpenSSL's XN_FLAG_SEP_MULTILINE prints it: one
// attribute a line, in the certificate's order.
func rdnText(raw []byte) string {
	var seq pkix.RDNSequence
	if _, err := asn1.Unmarshal(raw, &seq); err != nil {
		return ""
	}
	var lines []string
	for _, set := range seq {
		for _, atv := range set {
			name := rdnNames[atv.Type.String()]
			if name == "" {
				name = atv.Type.String()
			}
			lines = append(lines, name+"="+fmt.Sprint(atv.Value))
		}
	}
	return strings.Join(lines, "\n")
}

func colonHex(b []byte) string {
	h := strings.ToUpper(hex.EncodeToString(b))
	parts := make([]string, 0, len(b))
	for i := 0; i < len(h); i += 2 {
		parts = append(parts, h[i:i+2])
	}
	return strings.Join(parts, ":")
}

// subjectAltName is the SAN extension in its order, OpenSSL's way.
func subjectAltName(c *x509.Certificate) (string, bool) {
	for _, e := range c.Extensions {
		if !e.Id.Equal(asn1.ObjectIdentifier{2, 5, 29, 17}) {
			continue
		}
		var names []asn1.RawValue
		if _, err := asn1.Unmarshal(e.Value, &names); err != nil {
			return "", false
		}
		var out []string
		for _, n := range names {
			switch n.Tag {
			case 1:
				out = append(out, "email:"+string(n.Bytes))
			case 2:
				out = append(out, "DNS:"+string(n.Bytes))
			case 6:
				out = append(out, "URI:"+string(n.Bytes))
			case 7:
				ip := net.IP(n.Bytes)
				s := ip.String()
				if len(n.Bytes) == 16 {
					var hs []string
					for i := 0; i < 16; i += 2 {
						hs = append(hs, strings.ToUpper(fmt.Sprintf("%x", int(n.Bytes[i])<<8|int(n.Bytes[i+1]))))
					}
					s = strings.Join(hs, ":")
				}
				out = append(out, "IP Address:"+s)
			default:
				out = append(out, "othername:<unsupported>")
			}
		}
		return strings.Join(out, ", "), true
	}
	return "", false
}

func infoAccess(c *x509.Certificate) (string, bool) {
	if len(c.OCSPServer) == 0 && len(c.IssuingCertificateURL) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, u := range c.OCSPServer {
		b.WriteString("OCSP - URI:" + u + "\n")
	}
	for _, u := range c.IssuingCertificateURL {
		b.WriteString("CA Issuers - URI:" + u + "\n")
	}
	return b.String(), true
}

// bufferText is Node's inspect of a Buffer (<Buffer 6e 6f ...>).
func bufferText(b []byte) string {
	n := min(len(b), 50)
	parts := make([]string, n)
	for i := 0; i < n; i++ {
		parts[i] = fmt.Sprintf("%02x", b[i])
	}
	s := "<Buffer " + strings.Join(parts, " ")
	if len(b) > 50 {
		s += fmt.Sprintf(" ... %d more bytes", len(b)-50)
	}
	return s + ">"
}

func parseCertificate(raw []byte) (*x509.Certificate, error) {
	if block, _ := pem.Decode(raw); block != nil && block.Type == "CERTIFICATE" {
		raw = block.Bytes
	}
	return x509.ParseCertificate(raw)
}

// x509Natives: x509Parse(bytes) -> [cert, info], x509Check(cert, kind, value), x509Verify(cert, key), x509Issued(a, b).
func x509Natives(rt *goja.Runtime, n *goja.Object, key func(goja.Value) *nodeKey) {
	cert := func(v goja.Value) *x509.Certificate { c, _ := v.Export().(*x509.Certificate); return c }
	_ = n.Set("x509Parse", func(c goja.FunctionCall) goja.Value {
		raw := data(rt, c.Argument(0), goja.Undefined())
		crt, err := parseCertificate(raw)
		if err != nil {
			panic(nodeError(rt, "TypeError", "ERR_INVALID_ARG_VALUE", "The argument 'buffer' is not a valid certificate. Received "+bufferText(raw)))
		}
		info := rt.NewObject()
		set := func(k string, v any) { _ = info.Set(k, v) }
		set("subject", rdnText(crt.RawSubject))
		set("issuer", rdnText(crt.RawIssuer))
		if s, ok := subjectAltName(crt); ok {
			set("subjectAltName", s)
		}
		if s, ok := infoAccess(crt); ok {
			set("infoAccess", s)
		}
		set("serialNumber", strings.ToUpper(hex.EncodeToString(crt.SerialNumber.Bytes())))
		set("validFrom", crt.NotBefore.UTC().Format("Jan _2 15:04:05 2006 GMT"))
		set("validTo", crt.NotAfter.UTC().Format("Jan _2 15:04:05 2006 GMT"))
		s1, s256, s512 := sha1.Sum(crt.Raw), sha256.Sum256(crt.Raw), sha512.Sum512(crt.Raw)
		set("fingerprint", colonHex(s1[:]))
		set("fingerprint256", colonHex(s256[:]))
		set("fingerprint512", colonHex(s512[:]))
		set("ca", crt.BasicConstraintsValid && crt.IsCA)
		if len(crt.ExtKeyUsage) > 0 || len(crt.UnknownExtKeyUsage) > 0 {
			var oids []string
			for _, u := range crt.ExtKeyUsage {
				if oid, ok := extKeyUsageOIDs[u]; ok {
					oids = append(oids, oid)
				}
			}
			for _, o := range crt.UnknownExtKeyUsage {
				oids = append(oids, o.String())
			}
			set("keyUsage", oids)
		}
		set("raw", buffer.WrapBytes(rt, append([]byte{}, crt.Raw...)))
		set("pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: crt.Raw})))
		set("publicKey", rt.ToValue(&nodeKey{typ: "public", pub: crt.PublicKey}))
		return rt.ToValue([]any{crt, info})
	})
	// x509Check(cert, kind, value) -> the matching name or undefined
	_ = n.Set("x509Check", func(c goja.FunctionCall) goja.Value {
		crt, v := cert(c.Argument(0)), c.Argument(2).String()
		switch c.Argument(1).String() {
		case "host":
			host := strings.ToLower(strings.TrimSuffix(v, "."))
			for _, name := range crt.DNSNames {
				if hostMatches(strings.ToLower(name), host) {
					return rt.ToValue(name)
				}
			}
			if len(crt.DNSNames) == 0 && strings.EqualFold(crt.Subject.CommonName, host) {
				return rt.ToValue(crt.Subject.CommonName)
			}
		case "email":
			for _, e := range crt.EmailAddresses {
				if strings.EqualFold(e, v) {
					return rt.ToValue(e)
				}
			}
		case "ip":
			ip := net.ParseIP(v)
			for _, a := range crt.IPAddresses {
				if ip != nil && a.Equal(ip) {
					return rt.ToValue(v)
				}
			}
		}
		return goja.Undefined()
	})
	_ = n.Set("x509Verify", func(c goja.FunctionCall) goja.Value {
		crt, k := cert(c.Argument(0)), key(c.Argument(1))
		parent := &x509.Certificate{PublicKey: k.public()}
		return rt.ToValue(parent.CheckSignature(crt.SignatureAlgorithm, crt.RawTBSCertificate, crt.Signature) == nil)
	})
	_ = n.Set("x509Issued", func(c goja.FunctionCall) goja.Value {
		a, b := cert(c.Argument(0)), cert(c.Argument(1))
		ok := bytes.Equal(a.RawIssuer, b.RawSubject) &&
			(len(a.AuthorityKeyId) == 0 || len(b.SubjectKeyId) == 0 || bytes.Equal(a.AuthorityKeyId, b.SubjectKeyId))
		return rt.ToValue(ok)
	})
	_ = n.Set("x509MatchesKey", func(c goja.FunctionCall) goja.Value {
		crt, k := cert(c.Argument(0)), key(c.Argument(1))
		type equaler interface{ Equal(crypto.PublicKey) bool }
		e, ok := crt.PublicKey.(equaler)
		return rt.ToValue(ok && k.typ == "private" && e.Equal(k.public()))
	})
}

// hostMatches is RFC 6125 matching with a wildcard only as the whole
// leftmost label.
func hostMatches(pattern, host string) bool {
	if pattern == host {
		return true
	}
	if !strings.HasPrefix(pattern, "*.") {
		return false
	}
	i := strings.IndexByte(host, '.')
	return i > 0 && host[i:] == pattern[1:]
}

var extKeyUsageOIDs = map[x509.ExtKeyUsage]string{
	x509.ExtKeyUsageAny: "2.5.29.37.0", x509.ExtKeyUsageServerAuth: "1.3.6.1.5.5.7.3.1", x509.ExtKeyUsageClientAuth: "1.3.6.1.5.5.7.3.2",
	x509.ExtKeyUsageCodeSigning: "1.3.6.1.5.5.7.3.3", x509.ExtKeyUsageEmailProtection: "1.3.6.1.5.5.7.3.4",
	x509.ExtKeyUsageIPSECEndSystem: "1.3.6.1.5.5.7.3.5", x509.ExtKeyUsageIPSECTunnel: "1.3.6.1.5.5.7.3.6", x509.ExtKeyUsageIPSECUser: "1.3.6.1.5.5.7.3.7",
	x509.ExtKeyUsageTimeStamping: "1.3.6.1.5.5.7.3.8", x509.ExtKeyUsageOCSPSigning: "1.3.6.1.5.5.7.3.9",
	x509.ExtKeyUsageMicrosoftServerGatedCrypto: "1.3.6.1.4.1.311.10.3.3", x509.ExtKeyUsageNetscapeServerGatedCrypto: "2.16.840.1.113730.4.1",
	x509.ExtKeyUsageMicrosoftCommercialCodeSigning: "1.3.6.1.4.1.311.2.1.22", x509.ExtKeyUsageMicrosoftKernelCodeSigning: "1.3.6.1.4.1.311.61.1.1",
}

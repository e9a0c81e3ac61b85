package node

// node:crypto's keys, signatures, key derivation and AES ciphers: Go
// natives behind the classes in crypto.js (KeyObject, Sign, Verify,
// Cipheriv, Decipheriv).

import (
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/rsa"
	"crypto/subtle"
	"crypto/x509"
	_ "embed"
	"encoding/asn1"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strconv"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/buffer"
	"golang.org/x/crypto/scrypt"

	"github.com/cellhost/cellhost/jsapi/web"
)

//go:embed crypto.js
var cryptoJS string

var cryptoProgram = goja.MustCompile("cellhost:node-crypto.js", cryptoJS, true)

// nodeKey is a KeyObject's internals.
type nodeKey struct {
	typ    string // "secret", "public", "private"
	secret []byte
	pub    crypto.PublicKey
	priv   crypto.PrivateKey
}

func (k *nodeKey) public() crypto.PublicKey {
	if k.pub != nil {
		return k.pub
	}
	if s, ok := k.priv.(crypto.Signer); ok {
		return s.Public()
	}
	if p, ok := k.priv.(*ecdh.PrivateKey); ok {
		return p.PublicKey()
	}
	return nil
}

func (k *nodeKey) asymmetricType() string {
	switch k.public().(type) {
	case *rsa.PublicKey:
		return "rsa"
	case *ecdsa.PublicKey:
		return "ec"
	case ed25519.PublicKey:
		return "ed25519"
	case *ecdh.PublicKey:
		return "x25519"
	}
	return ""
}

var nodeCurveNames = map[string]string{"P-256": "prime256v1", "P-384": "secp384r1", "P-521": "secp521r1"}

func nodeCurve(name string) elliptic.Curve {
	switch name {
	case "prime256v1", "P-256", "secp256r1":
		return elliptic.P256()
	case "secp384r1", "P-384":
		return elliptic.P384()
	case "secp521r1", "P-521":
		return elliptic.P521()
	}
	return nil
}

func nodeHash(rt *goja.Runtime, name string) crypto.Hash {
	n := strings.ToLower(name)
	n = strings.TrimPrefix(n, "rsa-")
	switch strings.ReplaceAll(n, "-", "") {
	case "sha1":
		return crypto.SHA1
	case "sha224":
		return crypto.SHA224
	case "sha256":
		return crypto.SHA256
	case "sha384":
		return crypto.SHA384
	case "sha512":
		return crypto.SHA512
	case "md5":
		return crypto.MD5
	}
	panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_DIGEST", "Invalid digest: "+name))
}

func b64u(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func pad(b []byte, n int) []byte {
	if len(b) >= n {
		return b
	}
	return append(make([]byte, n-len(b)), b...)
}

// parseKey reads a public or private key in PEM, DER or JWK.
func parseKey(rt *goja.Runtime, kind string, raw []byte, format, typ string, jwk *goja.Object) *nodeKey {
	fail := func(string) { panic(plainError(rt, "Failed to parse "+kind+" key")) }
	if format == "der" {
		valid := map[string]bool{"pkcs1": true, "spki": kind == "public", "pkcs8": kind == "private", "sec1": kind == "private"}
		if !valid[typ] {
			list := "'pkcs1', 'spki'"
			if kind == "private" {
				list = "'pkcs1', 'pkcs8', 'sec1'"
			}
			panic(nodeError(rt, "TypeError", "ERR_INVALID_ARG_VALUE", "The argument 'type' must be one of: "+list+". Received '"+typ+"'"))
		}
	}
	k := &nodeKey{typ: kind}
	var key any
	var err error
	switch format {
	case "jwk":
		key = parseJWK(rt, jwk, kind)
	case "der":
		switch {
		case kind == "public" && typ == "pkcs1":
			key, err = x509.ParsePKCS1PublicKey(raw)
		case kind == "public":
			key, err = x509.ParsePKIXPublicKey(raw)
		case typ == "pkcs1":
			key, err = x509.ParsePKCS1PrivateKey(raw)
		case typ == "sec1":
			key, err = x509.ParseECPrivateKey(raw)
		default:
			key, err = x509.ParsePKCS8PrivateKey(raw)
		}
	default:
		block, _ := pem.Decode(raw)
		if block == nil {
			fail("Failed to read " + kind + " key")
		}
		if x509.IsEncryptedPEMBlock(block) || block.Type == "ENCRYPTED PRIVATE KEY" { //nolint:staticcheck // detection only
			panic(nodeError(rt, "Error", "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM", "Encrypted private keys are not supported by cellhost."))
		}
		switch block.Type {
		case "PUBLIC KEY":
			key, err = x509.ParsePKIXPublicKey(block.Bytes)
		case "RSA PUBLIC KEY":
			key, err = x509.ParsePKCS1PublicKey(block.Bytes)
		case "CERTIFICATE":
			var c *x509.Certificate
			if c, err = x509.ParseCertificate(block.Bytes); err == nil {
				key = c.PublicKey
			}
		case "PRIVATE KEY":
			key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
		case "RSA PRIVATE KEY":
			key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
		case "EC PRIVATE KEY":
			key, err = x509.ParseECPrivateKey(block.Bytes)
		default:
			fail("Unsupported PEM block \"" + block.Type + "\"")
		}
	}
	if err != nil || key == nil {
		fail("Failed to read " + kind + " key")
	}
	switch key.(type) {
	case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey, *ecdh.PublicKey:
		if kind == "private" {
			fail("Failed to read private key")
		}
		k.pub = key
	default:
		if kind == "public" {
			k.pub = (&nodeKey{priv: key}).public()
		} else {
			k.priv = key
		}
	}
	if k.public() == nil {
		fail("Unsupported key type")
	}
	return k
}

func parseJWK(rt *goja.Runtime, o *goja.Object, kind string) any {
	str := func(name string) []byte {
		v := o.Get(name)
		if v == nil || goja.IsUndefined(v) {
			return nil
		}
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(v.String(), "="))
		if err != nil {
			panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_JWK", "Invalid JWK data"))
		}
		return b
	}
	bad := func() { panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_JWK", "Invalid JWK data")) }
	kty := o.Get("kty").String()
	switch kty {
	case "RSA":
		n, e := str("n"), str("e")
		if n == nil || e == nil {
			bad()
		}
		pub := rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if kind == "public" {
			return &pub
		}
		d, p, q := str("d"), str("p"), str("q")
		if d == nil || p == nil || q == nil {
			bad()
		}
		k := &rsa.PrivateKey{PublicKey: pub, D: new(big.Int).SetBytes(d), Primes: []*big.Int{new(big.Int).SetBytes(p), new(big.Int).SetBytes(q)}}
		if k.Validate() != nil {
			bad()
		}
		k.Precompute()
		return k
	case "EC":
		c := nodeCurve(o.Get("crv").String())
		if c == nil {
			panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_JWK", "Unsupported JWK EC curve: "+o.Get("crv").String()+"."))
		}
		n := (c.Params().BitSize + 7) / 8
		x, y := str("x"), str("y")
		pub, err := ecdsa.ParseUncompressedPublicKey(c, append(append([]byte{4}, pad(x, n)...), pad(y, n)...))
		if err != nil {
			bad()
		}
		if kind == "public" {
			return pub
		}
		priv, err := ecdsa.ParseRawPrivateKey(c, pad(str("d"), n))
		if err != nil || !priv.PublicKey.Equal(pub) {
			bad()
		}
		return priv
	case "OKP":
		crv := o.Get("crv").String()
		x, d := str("x"), str("d")
		switch {
		case crv == "Ed25519" && kind == "public" && len(x) == 32:
			return ed25519.PublicKey(x)
		case crv == "Ed25519" && len(d) == 32:
			return ed25519.NewKeyFromSeed(d)
		case crv == "X25519" && kind == "public":
			if p, err := ecdh.X25519().NewPublicKey(x); err == nil {
				return p
			}
		case crv == "X25519":
			if p, err := ecdh.X25519().NewPrivateKey(d); err == nil {
				return p
			}
		}
		panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_JWK", "Unsupported JWK OKP curve: "+crv+"."))
	}
	panic(nodeError(rt, "TypeError", "ERR_INVALID_ARG_VALUE", "The property 'key.kty' must be one of: 'RSA', 'EC', 'OKP'. Received '"+kty+"'"))
}

// exportKey is KeyObject.export for asymmetric keys.
func exportKey(rt *goja.Runtime, k *nodeKey, format, typ string) goja.Value {
	fail := func(msg string) { panic(nodeError(rt, "TypeError", "ERR_INVALID_ARG_VALUE", msg)) }
	if format == "jwk" {
		var f [][2]string
		add := func(name string, b []byte) { f = append(f, [2]string{name, b64u(b)}) }
		switch p := k.public().(type) {
		case *rsa.PublicKey:
			f = append(f, [2]string{"kty", "RSA"})
			add("n", p.N.Bytes())
			add("e", big.NewInt(int64(p.E)).Bytes())
			if r, ok := k.priv.(*rsa.PrivateKey); ok {
				add("d", r.D.Bytes())
				add("p", r.Primes[0].Bytes())
				add("q", r.Primes[1].Bytes())
				add("dp", r.Precomputed.Dp.Bytes())
				add("dq", r.Precomputed.Dq.Bytes())
				add("qi", r.Precomputed.Qinv.Bytes())
			}
		case *ecdsa.PublicKey:
			b, _ := p.Bytes()
			n := (len(b) - 1) / 2
			f = append(f, [2]string{"kty", "EC"}, [2]string{"crv", p.Curve.Params().Name})
			add("x", b[1:1+n])
			add("y", b[1+n:])
			if e, ok := k.priv.(*ecdsa.PrivateKey); ok {
				d, _ := e.Bytes()
				add("d", d)
			}
		case ed25519.PublicKey:
			f = append(f, [2]string{"kty", "OKP"}, [2]string{"alg", "EdDSA"}, [2]string{"crv", "Ed25519"})
			add("x", p)
			if e, ok := k.priv.(ed25519.PrivateKey); ok {
				add("d", e.Seed())
			}
		case *ecdh.PublicKey:
			f = append(f, [2]string{"kty", "OKP"}, [2]string{"crv", "X25519"})
			add("x", p.Bytes())
			if e, ok := k.priv.(*ecdh.PrivateKey); ok {
				add("d", e.Bytes())
			}
		}
		return jwkObject(rt, f)
	}
	var der []byte
	var err error
	var label string
	if k.typ == "public" {
		switch typ {
		case "pkcs1":
			p, ok := k.pub.(*rsa.PublicKey)
			if !ok {
				fail("The pkcs1 type is only valid for RSA keys.")
			}
			der, label = x509.MarshalPKCS1PublicKey(p), "RSA PUBLIC KEY"
		case "spki", "":
			der, err = x509.MarshalPKIXPublicKey(k.pub)
			label = "PUBLIC KEY"
		default:
			fail("The property 'options.type' must be one of: 'pkcs1', 'spki'. Received '" + typ + "'")
		}
	} else {
		switch typ {
		case "pkcs1":
			p, ok := k.priv.(*rsa.PrivateKey)
			if !ok {
				fail("The pkcs1 type is only valid for RSA keys.")
			}
			der, label = x509.MarshalPKCS1PrivateKey(p), "RSA PRIVATE KEY"
		case "sec1":
			p, ok := k.priv.(*ecdsa.PrivateKey)
			if !ok {
				fail("The sec1 type is only valid for EC keys.")
			}
			der, err = x509.MarshalECPrivateKey(p)
			label = "EC PRIVATE KEY"
		case "pkcs8", "":
			der, err = x509.MarshalPKCS8PrivateKey(k.priv)
			label = "PRIVATE KEY"
		default:
			fail("The property 'options.type' must be one of: 'pkcs1', 'pkcs8', 'sec1'. Received '" + typ + "'")
		}
	}
	if err != nil {
		panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", "Failed to encode key"))
	}
	if format == "der" {
		return buffer.WrapBytes(rt, der)
	}
	return rt.ToValue(string(pem.EncodeToMemory(&pem.Block{Type: label, Bytes: der})))
}

// jwkObject is a JsonWebKey as workerd returns one: every member, in its
// order, undefined when absent.
func jwkObject(rt *goja.Runtime, fields [][2]string) *goja.Object {
	o := rt.NewObject()
	for _, name := range []string{"kty", "use", "key_ops", "alg", "ext", "crv", "x", "y", "d", "n", "e", "p", "q", "dp", "dq", "qi", "oth", "k", "pub", "priv"} {
		var v goja.Value = goja.Undefined()
		for _, kv := range fields {
			if kv[0] == name {
				v = rt.ToValue(kv[1])
			}
		}
		if name == "ext" && len(fields) > 0 && fields[0][1] == "oct" {
			v = rt.ToValue(true)
		}
		_ = o.Set(name, v)
	}
	return o
}

func keyDetails(rt *goja.Runtime, k *nodeKey) *goja.Object {
	o := rt.NewObject()
	switch p := k.public().(type) {
	case *rsa.PublicKey:
		_ = o.Set("modulusLength", p.N.BitLen())
		e := rt.Get("BigInt")
		f, _ := goja.AssertFunction(e)
		v, _ := f(goja.Undefined(), rt.ToValue(p.E))
		_ = o.Set("publicExponent", v)
	case *ecdsa.PublicKey:
		_ = o.Set("namedCurve", nodeCurveNames[p.Curve.Params().Name])
	}
	return o
}

// ecdsa signatures: Node's default is DER, "ieee-p1363" is r||s.
type ecdsaSig struct{ R, S *big.Int }

func nodeSign(rt *goja.Runtime, hashName string, k *nodeKey, msg []byte, padding int64, saltLength int64, p1363 bool) []byte {
	fail := func(msg string) { panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", msg)) }
	switch p := k.priv.(type) {
	case ed25519.PrivateKey:
		return ed25519.Sign(p, msg)
	case *rsa.PrivateKey:
		h := nodeHash(rt, orDefault(hashName, "sha256"))
		d := digestOf(h, msg)
		var out []byte
		var err error
		if padding == 6 { // RSA_PKCS1_PSS_PADDING
			out, err = rsa.SignPSS(rand.Reader, p, h, d, &rsa.PSSOptions{SaltLength: pssSaltLength(saltLength)})
		} else {
			out, err = rsa.SignPKCS1v15(rand.Reader, p, h, d)
		}
		if err != nil {
			fail(err.Error())
		}
		return out
	case *ecdsa.PrivateKey:
		h := nodeHash(rt, orDefault(hashName, "sha256"))
		r, s, err := ecdsa.Sign(rand.Reader, p, digestOf(h, msg))
		if err != nil {
			fail(err.Error())
		}
		if p1363 {
			n := (p.Curve.Params().BitSize + 7) / 8
			out := make([]byte, 2*n)
			r.FillBytes(out[:n])
			s.FillBytes(out[n:])
			return out
		}
		out, _ := asn1.Marshal(ecdsaSig{r, s})
		return out
	}
	panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE", "Invalid key object type public, expected private."))
}

func nodeVerify(rt *goja.Runtime, hashName string, k *nodeKey, msg, sig []byte, padding int64, saltLength int64, p1363 bool) bool {
	switch p := k.public().(type) {
	case ed25519.PublicKey:
		return len(sig) == ed25519.SignatureSize && ed25519.Verify(p, msg, sig)
	case *rsa.PublicKey:
		h := nodeHash(rt, orDefault(hashName, "sha256"))
		if padding == 6 {
			return rsa.VerifyPSS(p, h, digestOf(h, msg), sig, &rsa.PSSOptions{SaltLength: pssSaltLength(saltLength)}) == nil
		}
		return rsa.VerifyPKCS1v15(p, h, digestOf(h, msg), sig) == nil
	case *ecdsa.PublicKey:
		h := nodeHash(rt, orDefault(hashName, "sha256"))
		var r, s *big.Int
		if p1363 {
			n := (p.Curve.Params().BitSize + 7) / 8
			if len(sig) != 2*n {
				return false
			}
			r, s = new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:])
		} else {
			var es ecdsaSig
			if rest, err := asn1.Unmarshal(sig, &es); err != nil || len(rest) != 0 {
				return false
			}
			r, s = es.R, es.S
		}
		return ecdsa.Verify(p, digestOf(h, msg), r, s)
	}
	panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE", "Invalid key object type, expected an asymmetric key."))
}

// pssSaltLength maps Node's RSA_PSS_SALTLEN_* (-1 digest, -2 max) to Go's.
func pssSaltLength(n int64) int {
	switch n {
	case -1:
		return rsa.PSSSaltLengthEqualsHash
	case -2, -3:
		return rsa.PSSSaltLengthAuto
	}
	return int(n)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func digestOf(h crypto.Hash, msg []byte) []byte {
	w := h.New()
	w.Write(msg)
	return w.Sum(nil)
}

// nodeCipher is a Cipheriv or Decipheriv.
type nodeCipher struct {
	mode     string // cbc, ctr, gcm, ecb
	decrypt  bool
	block    cipher.Block
	iv       []byte
	stream   cipher.Stream
	cbc      cipher.BlockMode
	buf      []byte
	padding  bool
	aad      []byte
	tag      []byte
	tagLen   int
	finished bool
}

var cipherNames = []string{"aes-128-cbc", "aes-192-cbc", "aes-256-cbc", "aes-128-ctr", "aes-192-ctr", "aes-256-ctr",
	"aes-128-ecb", "aes-192-ecb", "aes-256-ecb", "aes-128-ofb", "aes-192-ofb", "aes-256-ofb", "aes-128-gcm", "aes-192-gcm", "aes-256-gcm"}

func newNodeCipher(rt *goja.Runtime, name string, key, iv []byte, decrypt bool, tagLen int) *nodeCipher {
	n := strings.ToLower(name)
	parts := strings.Split(n, "-")
	if len(parts) != 3 || parts[0] != "aes" {
		panic(plainError(rt, "Unknown or unsupported cipher: "+name))
	}
	bits, _ := strconv.Atoi(parts[1])
	mode := parts[2]
	if (bits != 128 && bits != 192 && bits != 256) || (mode != "cbc" && mode != "ctr" && mode != "gcm" && mode != "ecb" && mode != "ofb") {
		panic(plainError(rt, "Unknown or unsupported cipher: "+name))
	}
	if len(key) != bits/8 {
		panic(plainError(rt, "Invalid key length"))
	}
	switch {
	case mode == "ecb" && len(iv) != 0,
		(mode == "cbc" || mode == "ctr" || mode == "ofb") && len(iv) != 16,
		mode == "gcm" && len(iv) == 0:
		panic(plainError(rt, "Invalid initialization vector"))
	}
	b, _ := aes.NewCipher(key)
	c := &nodeCipher{mode: mode, decrypt: decrypt, block: b, iv: append([]byte{}, iv...), padding: true, tagLen: tagLen}
	switch mode {
	case "ctr":
		c.stream = cipher.NewCTR(b, iv)
	case "ofb":
		c.stream = cipher.NewOFB(b, iv) //nolint:staticcheck // Node's aes-*-ofb
	case "cbc":
		if decrypt {
			c.cbc = cipher.NewCBCDecrypter(b, iv)
		} else {
			c.cbc = cipher.NewCBCEncrypter(b, iv)
		}
	}
	return c
}

func (c *nodeCipher) update(in []byte) []byte {
	switch c.mode {
	case "ctr", "ofb":
		out := make([]byte, len(in))
		c.stream.XORKeyStream(out, in)
		return out
	case "gcm":
		c.buf = append(c.buf, in...)
		return nil
	}
	c.buf = append(c.buf, in...)
	n := len(c.buf) / 16 * 16
	if c.decrypt && c.padding && n == len(c.buf) && n > 0 {
		n -= 16 // the last block may hold the padding
	}
	out := make([]byte, n)
	c.crypt(out, c.buf[:n])
	c.buf = append([]byte{}, c.buf[n:]...)
	return out
}

func (c *nodeCipher) crypt(dst, src []byte) {
	if c.mode == "cbc" {
		c.cbc.CryptBlocks(dst, src)
		return
	}
	for i := 0; i < len(src); i += 16 {
		if c.decrypt {
			c.block.Decrypt(dst[i:i+16], src[i:i+16])
		} else {
			c.block.Encrypt(dst[i:i+16], src[i:i+16])
		}
	}
}

func (c *nodeCipher) final(rt *goja.Runtime) []byte {
	c.finished = true
	switch c.mode {
	case "ctr", "ofb":
		return nil
	case "gcm":
		g, err := cipher.NewGCMWithNonceSize(c.block, len(c.iv))
		if err != nil {
			panic(plainError(rt, "Invalid initialization vector"))
		}
		if !c.decrypt {
			out := g.Seal(nil, c.iv, c.buf, c.aad)
			n := len(c.buf)
			c.tag = out[n:] // workerd ignores authTagLength here
			return out[:n]
		}
		if c.tag == nil {
			panic(plainError(rt, "Authentication failed"))
		}
		// Seal of the ciphertext is the plaintext (GCM is CTR); sealing that
		// gives the full tag, of which the given one must be a prefix.
		plain := g.Seal(nil, c.iv, c.buf, nil)[:len(c.buf)]
		full := g.Seal(nil, c.iv, plain, c.aad)[len(c.buf):]
		if subtle.ConstantTimeCompare(full[:len(c.tag)], c.tag) != 1 {
			panic(plainError(rt, "Authentication failed"))
		}
		return plain
	}
	if !c.padding {
		if len(c.buf) != 0 {
			panic(plainError(rt, "Authentication failed"))
		}
		return nil
	}
	if !c.decrypt {
		p := 16 - len(c.buf)%16
		for i := 0; i < p; i++ {
			c.buf = append(c.buf, byte(p))
		}
		out := make([]byte, len(c.buf))
		c.crypt(out, c.buf)
		return out
	}
	if len(c.buf) != 16 {
		panic(plainError(rt, "Authentication failed"))
	}
	out := make([]byte, 16)
	c.crypt(out, c.buf)
	p := int(out[15])
	if p == 0 || p > 16 {
		panic(plainError(rt, "Authentication failed"))
	}
	for _, b := range out[16-p:] {
		if int(b) != p {
			panic(plainError(rt, "Authentication failed"))
		}
	}
	return out[:16-p]
}

// nodeECDH is a crypto.ECDH.
type nodeECDH struct {
	curve ecdh.Curve
	ec    elliptic.Curve
	priv  *ecdh.PrivateKey
}

func ecdhCurve(name string) (ecdh.Curve, elliptic.Curve) {
	switch name {
	case "prime256v1", "secp256r1", "P-256":
		return ecdh.P256(), elliptic.P256()
	case "secp384r1", "P-384":
		return ecdh.P384(), elliptic.P384()
	case "secp521r1", "P-521":
		return ecdh.P521(), elliptic.P521()
	}
	return nil, nil
}

// ecPoint reads an uncompressed, compressed or hybrid point as the
// uncompressed bytes crypto/ecdh takes.
func ecPoint(c elliptic.Curve, b []byte) ([]byte, bool) {
	n := (c.Params().BitSize + 7) / 8
	switch {
	case len(b) == 1+n && (b[0] == 2 || b[0] == 3):
		x, y := elliptic.UnmarshalCompressed(c, b) //nolint:staticcheck // point decoding only
		if x == nil {
			return nil, false
		}
		return elliptic.Marshal(c, x, y), true //nolint:staticcheck // point encoding only
	case len(b) == 1+2*n && (b[0] == 6 || b[0] == 7):
		return append([]byte{4}, b[1:]...), true
	}
	return b, len(b) == 1+2*n && b[0] == 4
}

// ecFormat writes an uncompressed point as format asks.
func ecFormat(c elliptic.Curve, p []byte, format string) []byte {
	switch format {
	case "compressed":
		x, y := elliptic.Unmarshal(c, p) //nolint:staticcheck // point decoding only
		return elliptic.MarshalCompressed(c, x, y)
	case "hybrid":
		out := append([]byte{6}, p[1:]...)
		out[0] |= p[len(p)-1] & 1
		return out
	}
	return p
}

// cryptoKeysNatives are the natives crypto.js receives.
func cryptoKeysNatives(rt *goja.Runtime) *goja.Object {
	n := rt.NewObject()
	set := func(name string, f func(goja.FunctionCall) goja.Value) { _ = n.Set(name, f) }
	key := func(v goja.Value) *nodeKey { k, _ := v.Export().(*nodeKey); return k }
	bytesArg := func(v goja.Value) []byte { return data(rt, v, goja.Undefined()) }
	set("secretKey", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(&nodeKey{typ: "secret", secret: append([]byte{}, bytesArg(c.Argument(0))...)})
	})
	// parseKey(kind, data, format, type, jwk)
	set("parseKey", func(c goja.FunctionCall) goja.Value {
		var raw []byte
		var jwk *goja.Object
		if c.Argument(2).String() == "jwk" {
			jwk = c.Argument(4).ToObject(rt)
		} else {
			raw = bytesArg(c.Argument(1))
		}
		return rt.ToValue(parseKey(rt, c.Argument(0).String(), raw, c.Argument(2).String(), c.Argument(3).String(), jwk))
	})
	set("publicOf", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(0))
		return rt.ToValue(&nodeKey{typ: "public", pub: k.public()})
	})
	// keyInfo(k) -> [type, asymmetricKeyType, details, symmetricKeySize]
	set("keyInfo", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(0))
		if k.typ == "secret" {
			return rt.ToValue([]any{k.typ, goja.Undefined(), goja.Undefined(), len(k.secret)})
		}
		return rt.ToValue([]any{k.typ, k.asymmetricType(), keyDetails(rt, k), goja.Undefined()})
	})
	set("exportSecret", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(0))
		if c.Argument(1).String() == "jwk" {
			return jwkObject(rt, [][2]string{{"kty", "oct"}, {"k", b64u(k.secret)}})
		}
		return buffer.WrapBytes(rt, append([]byte{}, k.secret...))
	})
	set("exportKey", func(c goja.FunctionCall) goja.Value {
		return exportKey(rt, key(c.Argument(0)), c.Argument(1).String(), c.Argument(2).String())
	})
	set("equals", func(c goja.FunctionCall) goja.Value {
		a, b := key(c.Argument(0)), key(c.Argument(1))
		if a.typ != b.typ {
			return rt.ToValue(false)
		}
		if a.typ == "secret" {
			return rt.ToValue(len(a.secret) == len(b.secret) && subtle.ConstantTimeCompare(a.secret, b.secret) == 1)
		}
		type equaler interface{ Equal(crypto.PublicKey) bool }
		if e, ok := a.public().(equaler); ok {
			return rt.ToValue(e.Equal(b.public()))
		}
		return rt.ToValue(false)
	})
	// sign(hash, key, data, padding, saltLength, p1363)
	set("sign", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(1))
		if k.typ != "private" {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE", "Invalid key object type "+k.typ+", expected private."))
		}
		h := ""
		if v := c.Argument(0); !goja.IsNull(v) && !goja.IsUndefined(v) {
			h = v.String()
		}
		return buffer.WrapBytes(rt, nodeSign(rt, h, k, bytesArg(c.Argument(2)), c.Argument(3).ToInteger(), c.Argument(4).ToInteger(), c.Argument(5).ToBoolean()))
	})
	// verify(hash, key, data, signature, padding, saltLength, p1363)
	set("verify", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(1))
		h := ""
		if v := c.Argument(0); !goja.IsNull(v) && !goja.IsUndefined(v) {
			h = v.String()
		}
		return rt.ToValue(nodeVerify(rt, h, k, bytesArg(c.Argument(2)), bytesArg(c.Argument(3)), c.Argument(4).ToInteger(), c.Argument(5).ToInteger(), c.Argument(6).ToBoolean()))
	})
	// pbkdf2(password, salt, iterations, keylen, digest)
	set("pbkdf2", func(c goja.FunctionCall) goja.Value {
		digest := c.Argument(4).String()
		f := hashes[strings.ToLower(digest)]
		if f == nil {
			panic(rt.NewTypeError("Invalid Pbkdf2 digest: " + digest + "."))
		}
		out, err := pbkdf2.Key(f, string(bytesArg(c.Argument(0))), bytesArg(c.Argument(1)), int(c.Argument(2).ToInteger()), int(c.Argument(3).ToInteger()))
		if err != nil {
			panic(plainError(rt, "Pbkdf2 failed: "+err.Error()))
		}
		return buffer.WrapBytes(rt, out)
	})
	// hkdf(digest, ikm, salt, info, keylen) -> ArrayBuffer
	set("hkdf", func(c goja.FunctionCall) goja.Value {
		digest := c.Argument(0).String()
		f := hashes[strings.ToLower(digest)]
		if f == nil {
			panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_DIGEST", "Invalid digest: "+digest))
		}
		out, err := hkdf.Key(f, bytesArg(c.Argument(1)), bytesArg(c.Argument(2)), string(bytesArg(c.Argument(3))), int(c.Argument(4).ToInteger()))
		if err != nil {
			panic(nodeError(rt, "RangeError", "ERR_CRYPTO_INVALID_KEYLEN", "Invalid key length"))
		}
		return rt.ToValue(rt.NewArrayBuffer(out))
	})
	// scrypt(password, salt, keylen, N, r, p)
	set("scrypt", func(c goja.FunctionCall) goja.Value {
		out, err := scrypt.Key(bytesArg(c.Argument(0)), bytesArg(c.Argument(1)), int(c.Argument(3).ToInteger()), int(c.Argument(4).ToInteger()), int(c.Argument(5).ToInteger()), int(c.Argument(2).ToInteger()))
		if err != nil {
			panic(nodeError(rt, "RangeError", "ERR_CRYPTO_INVALID_SCRYPT_PARAMS", "Invalid scrypt params: "+err.Error()))
		}
		return buffer.WrapBytes(rt, out)
	})
	// cipher(name, key, iv|null, decrypt, authTagLength)
	set("cipher", func(c goja.FunctionCall) goja.Value {
		var iv []byte
		if v := c.Argument(2); !goja.IsNull(v) && !goja.IsUndefined(v) {
			iv = bytesArg(v)
		}
		tagLen := 16
		if v := c.Argument(4); !goja.IsUndefined(v) && !goja.IsNull(v) {
			tagLen = int(v.ToInteger())
		}
		return rt.ToValue(newNodeCipher(rt, c.Argument(0).String(), bytesArg(c.Argument(1)), iv, c.Argument(3).ToBoolean(), tagLen))
	})
	ciph := func(v goja.Value) *nodeCipher { x, _ := v.Export().(*nodeCipher); return x }
	set("cipherUpdate", func(c goja.FunctionCall) goja.Value {
		return buffer.WrapBytes(rt, ciph(c.Argument(0)).update(bytesArg(c.Argument(1))))
	})
	set("cipherFinal", func(c goja.FunctionCall) goja.Value {
		return buffer.WrapBytes(rt, ciph(c.Argument(0)).final(rt))
	})
	set("cipherSetAAD", func(c goja.FunctionCall) goja.Value {
		x := ciph(c.Argument(0))
		x.aad = append(x.aad, bytesArg(c.Argument(1))...)
		return goja.Undefined()
	})
	set("cipherSetAutoPadding", func(c goja.FunctionCall) goja.Value {
		ciph(c.Argument(0)).padding = c.Argument(1).ToBoolean()
		return goja.Undefined()
	})
	set("cipherSetAuthTag", func(c goja.FunctionCall) goja.Value {
		x := ciph(c.Argument(0))
		t := bytesArg(c.Argument(1))
		if len(t) < 4 || len(t) > 16 {
			panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_AUTH_TAG", "Invalid authentication tag length: "+strconv.Itoa(len(t))))
		}
		x.tag = append([]byte{}, t...)
		return goja.Undefined()
	})
	set("cipherAuthTag", func(c goja.FunctionCall) goja.Value {
		x := ciph(c.Argument(0))
		if x.tag == nil || x.decrypt {
			panic(plainError(rt, "Invalid state for operation getAuthTag"))
		}
		return buffer.WrapBytes(rt, append([]byte{}, x.tag...))
	})
	set("ciphers", func(goja.FunctionCall) goja.Value { return rt.ToValue(cipherNames) })
	x509Natives(rt, n, key)
	// privateEncrypt(key, data, padding): PKCS#1 v1.5 type 1 (a signature of raw data).
	set("privateEncrypt", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(0))
		priv, ok := k.priv.(*rsa.PrivateKey)
		if !ok {
			panic(plainError(rt, "Failed to cipher/decipher"))
		}
		if c.Argument(2).ToInteger() != 1 {
			panic(nodeError(rt, "Error", "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM", "privateEncrypt supports only RSA_PKCS1_PADDING in cellhost"))
		}
		out, err := rsa.SignPKCS1v15(nil, priv, 0, bytesArg(c.Argument(1)))
		if err != nil {
			panic(plainError(rt, "Failed to cipher/decipher"))
		}
		return buffer.WrapBytes(rt, out)
	})
	// publicDecrypt(key, data, padding): the public operation (nothing secret
	// in it, so math/big is fine), then PKCS#1 v1.5 type 1 unpadding.
	set("publicDecrypt", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(0))
		pub, ok := k.public().(*rsa.PublicKey)
		in := bytesArg(c.Argument(1))
		if !ok || len(in) != pub.Size() {
			panic(plainError(rt, "Failed to cipher/decipher"))
		}
		m := new(big.Int).Exp(new(big.Int).SetBytes(in), big.NewInt(int64(pub.E)), pub.N).FillBytes(make([]byte, pub.Size()))
		if c.Argument(2).ToInteger() == 3 { // RSA_NO_PADDING
			return buffer.WrapBytes(rt, m)
		}
		if m[0] != 0 || m[1] != 1 {
			panic(plainError(rt, "Failed to cipher/decipher"))
		}
		i := 2
		for i < len(m) && m[i] == 0xff {
			i++
		}
		if i < 10 || i >= len(m) || m[i] != 0 {
			panic(plainError(rt, "Failed to cipher/decipher"))
		}
		return buffer.WrapBytes(rt, m[i+1:])
	})
	dhNatives(rt, n)
	ecdhOf := func(v goja.Value) *nodeECDH { x, _ := v.Export().(*nodeECDH); return x }
	set("ecdhNew", func(c goja.FunctionCall) goja.Value {
		cv, ec := ecdhCurve(c.Argument(0).String())
		if cv == nil {
			panic(plainError(rt, "Invalid curve"))
		}
		return rt.ToValue(&nodeECDH{curve: cv, ec: ec})
	})
	set("ecdhGenerate", func(c goja.FunctionCall) goja.Value {
		x := ecdhOf(c.Argument(0))
		x.priv, _ = x.curve.GenerateKey(rand.Reader)
		return goja.Undefined()
	})
	set("ecdhPublic", func(c goja.FunctionCall) goja.Value {
		x := ecdhOf(c.Argument(0))
		if x.priv == nil {
			panic(plainError(rt, "Failed to get ECDH public key"))
		}
		return buffer.WrapBytes(rt, ecFormat(x.ec, x.priv.PublicKey().Bytes(), c.Argument(1).String()))
	})
	set("ecdhPrivate", func(c goja.FunctionCall) goja.Value {
		x := ecdhOf(c.Argument(0))
		if x.priv == nil {
			panic(plainError(rt, "Failed to get ECDH private key"))
		}
		return buffer.WrapBytes(rt, x.priv.Bytes())
	})
	set("ecdhSetPrivate", func(c goja.FunctionCall) goja.Value {
		x := ecdhOf(c.Argument(0))
		b := bytesArg(c.Argument(1))
		n := (x.ec.Params().BitSize + 7) / 8
		p, err := x.curve.NewPrivateKey(pad(b, n))
		if err != nil || len(b) > n {
			panic(plainError(rt, "Private key is not valid for specified curve."))
		}
		x.priv = p
		return goja.Undefined()
	})
	set("ecdhSecret", func(c goja.FunctionCall) goja.Value {
		x := ecdhOf(c.Argument(0))
		if x.priv == nil {
			panic(plainError(rt, "Failed to get ECDH private key"))
		}
		raw, ok := ecPoint(x.ec, bytesArg(c.Argument(1)))
		var pub *ecdh.PublicKey
		var err error
		if ok {
			pub, err = x.curve.NewPublicKey(raw)
		}
		if !ok || err != nil {
			panic(plainError(rt, "Failed to set point"))
		}
		s, err := x.priv.ECDH(pub)
		if err != nil {
			panic(plainError(rt, "Failed to set point"))
		}
		return buffer.WrapBytes(rt, s)
	})
	// ecdhConvert(key, curve, format)
	set("ecdhConvert", func(c goja.FunctionCall) goja.Value {
		_, ec := ecdhCurve(c.Argument(1).String())
		if ec == nil {
			panic(plainError(rt, "Invalid curve"))
		}
		raw, ok := ecPoint(ec, bytesArg(c.Argument(0)))
		if ok {
			if x, _ := elliptic.Unmarshal(ec, raw); x == nil { //nolint:staticcheck // point check only
				ok = false
			}
		}
		if !ok {
			panic(plainError(rt, "Failed to convert Buffer to EC_POINT"))
		}
		return buffer.WrapBytes(rt, ecFormat(ec, raw, c.Argument(2).String()))
	})
	// diffieHellman(privateKey, publicKey): both KeyObject handles of one type.
	set("diffieHellman", func(c goja.FunctionCall) goja.Value {
		priv, pub := key(c.Argument(0)), key(c.Argument(1))
		var s []byte
		var err error
		switch p := priv.priv.(type) {
		case *ecdh.PrivateKey:
			q, _ := pub.public().(*ecdh.PublicKey)
			if q == nil {
				panic(nodeError(rt, "Error", "ERR_CRYPTO_INCOMPATIBLE_KEY", "Incompatible key types for Diffie-Hellman"))
			}
			s, err = p.ECDH(q)
		case *ecdsa.PrivateKey:
			q, _ := pub.public().(*ecdsa.PublicKey)
			if q == nil {
				panic(nodeError(rt, "Error", "ERR_CRYPTO_INCOMPATIBLE_KEY", "Incompatible key types for Diffie-Hellman"))
			}
			a, e1 := p.ECDH()
			b, e2 := q.ECDH()
			if e1 != nil || e2 != nil || a.Curve() != b.Curve() {
				panic(nodeError(rt, "Error", "ERR_CRYPTO_INCOMPATIBLE_KEY", "Incompatible key types for Diffie-Hellman"))
			}
			s, err = a.ECDH(b)
		default:
			panic(nodeError(rt, "Error", "ERR_CRYPTO_INCOMPATIBLE_KEY", "Incompatible key types for Diffie-Hellman"))
		}
		if err != nil {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", "Failed to derive the shared secret"))
		}
		return buffer.WrapBytes(rt, s)
	})
	// checkPrime(bytes, checks) / generatePrime(bits, safe) -> big-endian bytes
	const maxPrimeBits = 8192
	set("checkPrime", func(c goja.FunctionCall) goja.Value {
		checks := int(c.Argument(1).ToInteger())
		if checks <= 0 {
			checks = 20
		}
		return rt.ToValue(new(big.Int).SetBytes(bytesArg(c.Argument(0))).ProbablyPrime(checks))
	})
	set("generatePrime", func(c goja.FunctionCall) goja.Value {
		bits, safe := int(c.Argument(0).ToInteger()), c.Argument(1).ToBoolean()
		if bits < 2 {
			panic(nodeError(rt, "RangeError", "ERR_OUT_OF_RANGE", "The value of \"size\" is out of range. It must be >= 2. Received "+strconv.Itoa(bits)))
		}
		// workerd's bound (kMaxPrimeBits): past it the search runs in Go for
		// minutes (a safe prime of 2^31 bits, never), where no CPU limit
		// can interrupt it.
		if bits > maxPrimeBits {
			panic(plainRangeError(rt, "generatePrime size exceeds maximum ("+strconv.Itoa(maxPrimeBits)+" bits)"))
		}
		for {
			select {
			case <-rt.InterruptDone():
				panic(plainError(rt, "generatePrime exceeded the CPU limit"))
			default:
			}
			p, err := rand.Prime(rand.Reader, bits)
			if err != nil {
				panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", err.Error()))
			}
			if !safe || new(big.Int).Rsh(p, 1).ProbablyPrime(20) {
				return rt.ToValue(rt.NewArrayBuffer(p.Bytes()))
			}
		}
	})
	// rsaEncrypt/rsaDecrypt(key, data, padding, oaepHash, label): padding 4 is OAEP, 1 PKCS#1 v1.5.
	rsaArgs := func(c goja.FunctionCall) (*nodeKey, []byte, int64, crypto.Hash, []byte) {
		return key(c.Argument(0)), bytesArg(c.Argument(1)), c.Argument(2).ToInteger(), nodeHash(rt, c.Argument(3).String()), bytesArg(c.Argument(4))
	}
	set("rsaEncrypt", func(c goja.FunctionCall) goja.Value {
		k, msg, padding, h, label := rsaArgs(c)
		pub, ok := k.public().(*rsa.PublicKey)
		if !ok {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", "publicEncrypt needs an RSA key"))
		}
		var out []byte
		var err error
		if padding == 1 {
			out, err = rsa.EncryptPKCS1v15(rand.Reader, pub, msg)
		} else {
			out, err = rsa.EncryptOAEP(h.New(), rand.Reader, pub, msg, label)
		}
		if err != nil {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", err.Error()))
		}
		return buffer.WrapBytes(rt, out)
	})
	set("rsaDecrypt", func(c goja.FunctionCall) goja.Value {
		k, msg, padding, h, label := rsaArgs(c)
		priv, ok := k.priv.(*rsa.PrivateKey)
		if !ok {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", "privateDecrypt needs an RSA private key"))
		}
		var out []byte
		var err error
		if padding == 1 {
			out, err = rsa.DecryptPKCS1v15(nil, priv, msg)
		} else {
			out, err = rsa.DecryptOAEP(h.New(), nil, priv, msg, label)
		}
		if err != nil {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", "RSA decryption failed"))
		}
		return buffer.WrapBytes(rt, out)
	})
	set("fromCryptoKey", func(c goja.FunctionCall) goja.Value {
		typ, secret, k, ok := web.CryptoKeyMaterial(rt, c.Argument(0))
		if !ok {
			return goja.Undefined()
		}
		switch typ {
		case "secret":
			return rt.ToValue(&nodeKey{typ: typ, secret: secret})
		case "public":
			return rt.ToValue(&nodeKey{typ: typ, pub: k})
		}
		return rt.ToValue(&nodeKey{typ: typ, priv: k})
	})
	// toCryptoKey(key, algorithm, extractable, usages)
	set("toCryptoKey", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(0))
		format, raw := "raw", k.secret
		var err error
		switch k.typ {
		case "public":
			format = "spki"
			raw, err = x509.MarshalPKIXPublicKey(k.pub)
		case "private":
			format = "pkcs8"
			raw, err = x509.MarshalPKCS8PrivateKey(k.priv)
		}
		if err != nil {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", "Failed to encode key"))
		}
		v, err := web.ImportCryptoKey(rt, format, raw, c.Argument(1), c.Argument(2).ToBoolean(), c.Argument(3))
		if err != nil {
			panic(err)
		}
		return v
	})
	// generateKeyPair(type, modulusLength, publicExponent, namedCurve) -> [pub, priv]
	set("generateKeyPair", func(c goja.FunctionCall) goja.Value {
		var priv crypto.PrivateKey
		switch t := c.Argument(0).String(); t {
		case "rsa":
			bits := int(c.Argument(1).ToInteger())
			if e := c.Argument(2); !goja.IsUndefined(e) && e.ToInteger() != 65537 {
				panic(nodeError(rt, "Error", "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM", "RSA public exponents other than 65537 are not supported by cellhost."))
			}
			// workerd's bound (kMaxRsaModulusLength, as WebCrypto's):
			// past it Go's key generation runs for minutes where no CPU
			// limit can interrupt it (crypto_keys-test asks for 16385).
			if bits > 16384 {
				panic(plainRangeError(rt, "RSA modulusLength exceeds maximum (16384)"))
			}
			k, err := rsa.GenerateKey(rand.Reader, bits)
			if err != nil {
				panic(nodeError(rt, "Error", "ERR_CRYPTO_OPERATION_FAILED", err.Error()))
			}
			priv = k
		case "ec":
			curve := nodeCurve(c.Argument(3).String())
			if curve == nil {
				panic(nodeError(rt, "TypeError", "ERR_CRYPTO_INVALID_CURVE", "Invalid EC curve name"))
			}
			priv, _ = ecdsa.GenerateKey(curve, rand.Reader)
		case "ed25519":
			_, priv, _ = ed25519.GenerateKey(rand.Reader)
		case "x25519":
			priv, _ = ecdh.X25519().GenerateKey(rand.Reader)
		default:
			panic(nodeError(rt, "TypeError", "ERR_INVALID_ARG_VALUE", "The argument 'type' must be a supported key type. Received '"+t+"'"))
		}
		k := &nodeKey{typ: "private", priv: priv}
		return rt.ToValue([]any{&nodeKey{typ: "public", pub: k.public()}, k})
	})
	return n
}

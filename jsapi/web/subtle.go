package web

// crypto.subtle on Go's crypto packages: CryptoKey material lives in Go (a
// *cryptoKey the JS CryptoKey holds in a private slot); js/crypto.js
// normalises arguments and calls the natives below. Checks, their order and
// their error names and texts follow workerd's src/workerd/api/crypto/*.c++.

import (
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/subtle"
	"fmt"
	"hash"
	"math/big"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// usage is a set of key usages; bit order is workerd's (CryptoKey.usages
// lists them in this order).
type usage uint8

const (
	uEncrypt usage = 1 << iota
	uDecrypt
	uSign
	uVerify
	uDeriveKey
	uDeriveBits
	uWrapKey
	uUnwrapKey
)

var usageNames = []string{"encrypt", "decrypt", "sign", "verify", "deriveKey", "deriveBits", "wrapKey", "unwrapKey"}

const (
	publicMask     = uEncrypt | uVerify | uWrapKey
	privateMask    = uDecrypt | uSign | uUnwrapKey | uDeriveKey | uDeriveBits
	derivationMask = uDeriveKey | uDeriveBits
)

func usageByName(s string) usage {
	for i, n := range usageNames {
		if n == s {
			return 1 << i
		}
	}
	return 0
}

func (u usage) names() []string {
	var out []string
	for i, n := range usageNames {
		if u&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func (u usage) count() int {
	n := 0
	for ; u != 0; u &= u - 1 {
		n++
	}
	return n
}

// validateUsages is workerd's CryptoKeyUsageSet::validate.
func validateUsages(name, op string, actual []string, mask usage) (usage, error) {
	var out usage
	for _, s := range actual {
		m := usageByName(s)
		if m == 0 || m&mask != m {
			return 0, domErr("SyntaxError", "Attempt to %s %s key with invalid usage \"%s\".", op, name, s)
		}
		out |= m
	}
	return out, nil
}

func domErr(name, f string, a ...any) error { return jserr.New(name, fmt.Sprintf(f, a...)) }
func typeErr(f string, a ...any) error      { return jserr.TypeError(fmt.Sprintf(f, a...)) }

// cryptoKey is a CryptoKey's internals.
type cryptoKey struct {
	alg         string // normalised algorithm name
	typ         string // "secret", "public", "private"
	extractable bool
	usages      usage
	hash        string // HMAC, RSA
	length      int    // AES and HMAC key length in bits
	curve       string // ECDSA, ECDH (P-256...), NODE-ED25519
	secret      []byte
	priv        crypto.PrivateKey // *ecdsa.PrivateKey, *rsa.PrivateKey, ed25519.PrivateKey, *ecdh.PrivateKey
	pub         crypto.PublicKey  // *ecdsa.PublicKey, *rsa.PublicKey, ed25519.PublicKey, *ecdh.PublicKey
}

// algorithms are the names lookupAlgorithm knows, canonical spelling.
var algorithms = []string{"AES-CTR", "AES-CBC", "AES-GCM", "AES-KW", "HMAC", "PBKDF2", "HKDF",
	"RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP", "ECDSA", "ECDH", "NODE-ED25519", "Ed25519", "X25519"}

func lookupAlg(name string) (string, bool) {
	for _, a := range algorithms {
		if strings.EqualFold(a, name) {
			return a, true
		}
	}
	return "", false
}

func lookupHash(name string) (string, func() hash.Hash, error) {
	for _, h := range []string{"SHA-1", "SHA-256", "SHA-384", "SHA-512", "MD5"} {
		if strings.EqualFold(h, name) {
			f, _ := hashFunc(h)
			return h, f, nil
		}
	}
	return "", nil, domErr("NotSupportedError", "Unrecognized or unimplemented digest algorithm requested.")
}

func hashFunc(name string) (func() hash.Hash, crypto.Hash) {
	switch name {
	case "SHA-1":
		return crypto.SHA1.New, crypto.SHA1
	case "SHA-256":
		return crypto.SHA256.New, crypto.SHA256
	case "SHA-384":
		return crypto.SHA384.New, crypto.SHA384
	case "SHA-512":
		return crypto.SHA512.New, crypto.SHA512
	case "MD5":
		return crypto.MD5.New, crypto.MD5
	}
	return nil, 0
}

// algParams is a normalised algorithm dictionary (js/crypto.js copies buffer
// members to Uint8Arrays and reduces hash to its name).
type algParams struct {
	obj  *goja.Object
	name string
}

func (a algParams) get(k string) goja.Value {
	if a.obj == nil {
		return nil
	}
	v := a.obj.Get(k)
	if v == nil || goja.IsUndefined(v) {
		return nil
	}
	return v
}

func (a algParams) str(k string) (string, bool) {
	v := a.get(k)
	if v == nil {
		return "", false
	}
	return v.String(), true
}

func (a algParams) num(k string) (int64, bool) {
	v := a.get(k)
	if v == nil {
		return 0, false
	}
	return v.ToInteger(), true
}

func (a algParams) bytes(k string) ([]byte, bool) {
	v := a.get(k)
	if v == nil {
		return nil, false
	}
	b, err := bytesOf(v)
	if err != nil {
		return nil, false
	}
	if b == nil {
		b = []byte{}
	}
	return b, true
}

func (a algParams) requireHash(where string) (string, error) {
	h, ok := a.str("hash")
	if !ok {
		return "", typeErr("Missing field \"hash\" in \"%s\".", where)
	}
	n, _, err := lookupHash(h)
	return n, err
}

func (a algParams) requireBytes(k string) ([]byte, error) {
	b, ok := a.bytes(k)
	if !ok {
		return nil, typeErr("Missing field \"%s\" in \"algorithm\".", k)
	}
	return b, nil
}

// ------------------------------------------------------------------ natives

func subtleNatives(rt *goja.Runtime, n natives) {
	params := func(v goja.Value) algParams {
		o := v.ToObject(rt)
		return algParams{obj: o, name: o.Get("name").String()}
	}
	key := func(v goja.Value) *cryptoKey {
		k, _ := v.Export().(*cryptoKey)
		return k
	}
	strs := func(v goja.Value) []string {
		var out []string
		_ = rt.ExportTo(v, &out)
		return out
	}
	// keyInfo(k) -> [type, extractable, algorithm, usages]
	n.set("keyInfo", func(c goja.FunctionCall) goja.Value {
		k := key(c.Argument(0))
		return rt.ToValue([]any{k.typ, k.extractable, k.algorithm(rt), k.usages.names()})
	})
	n.setE("importKey", func(c goja.FunctionCall) (goja.Value, error) {
		format := c.Argument(0).String()
		var raw []byte
		var jwk *goja.Object
		if format == "jwk" {
			jwk = c.Argument(1).ToObject(rt)
		} else {
			raw, _ = bytesOf(c.Argument(1))
			raw = append([]byte{}, raw...)
		}
		k, err := importKey(format, raw, jwk, params(c.Argument(2)), c.Argument(3).ToBoolean(), strs(c.Argument(4)))
		if err != nil {
			return nil, err
		}
		return rt.ToValue(k), nil
	})
	n.setE("exportKey", func(c goja.FunctionCall) (goja.Value, error) {
		return exportKey(rt, c.Argument(0).String(), key(c.Argument(1)))
	})
	n.setE("generateKey", func(c goja.FunctionCall) (goja.Value, error) {
		pub, priv, err := generateKey(params(c.Argument(0)), c.Argument(1).ToBoolean(), strs(c.Argument(2)))
		if err != nil {
			return nil, err
		}
		if pub == nil {
			return rt.ToValue(priv), nil
		}
		return rt.ToValue([]any{pub, priv}), nil
	})
	op := func(name string, u usage, f func(algParams, *cryptoKey, []byte) ([]byte, error)) {
		n.setE(name, func(c goja.FunctionCall) (goja.Value, error) {
			a, k := params(c.Argument(0)), key(c.Argument(1))
			if err := validateOperation(k, a.name, u); err != nil {
				return nil, err
			}
			data, _ := bytesOf(c.Argument(2))
			out, err := f(a, k, data)
			if err != nil {
				return nil, err
			}
			return rt.ToValue(rt.NewArrayBuffer(out)), nil
		})
	}
	op("sign", uSign, sign)
	op("encrypt", uEncrypt, encrypt)
	op("decrypt", uDecrypt, decrypt)
	op("wrap", uWrapKey, wrap)
	op("unwrap", uUnwrapKey, unwrap)
	n.setE("verify", func(c goja.FunctionCall) (goja.Value, error) {
		a, k := params(c.Argument(0)), key(c.Argument(1))
		if err := validateOperation(k, a.name, uVerify); err != nil {
			return nil, err
		}
		sig, _ := bytesOf(c.Argument(2))
		data, _ := bytesOf(c.Argument(3))
		ok, err := verify(a, k, sig, data)
		if err != nil {
			return nil, err
		}
		return rt.ToValue(ok), nil
	})
	// deriveBits(alg, key, length|null, usage)
	n.setE("deriveBits", func(c goja.FunctionCall) (goja.Value, error) {
		a, k := params(c.Argument(0)), key(c.Argument(1))
		u := uDeriveBits
		if c.Argument(3).ToBoolean() {
			u = uDeriveKey
		}
		if err := validateOperation(k, a.name, u); err != nil {
			return nil, err
		}
		length := -1
		if l := c.Argument(2); !goja.IsNull(l) && !goja.IsUndefined(l) {
			length = int(l.ToInteger())
		}
		out, err := deriveBits(a, k, length, key, rt.InterruptDone())
		if err != nil {
			return nil, err
		}
		return rt.ToValue(rt.NewArrayBuffer(out)), nil
	})
	// validate(alg, key, usage) is validateOperation ahead of an export or unwrap.
	n.setE("validate", func(c goja.FunctionCall) (goja.Value, error) {
		return goja.Undefined(), validateOperation(key(c.Argument(1)), params(c.Argument(0)).name, usageByName(c.Argument(2).String()))
	})
	// keyLength(derivedAlg) -> bits or null: workerd's getKeyLength.
	n.setE("keyLength", func(c goja.FunctionCall) (goja.Value, error) {
		l, err := derivedKeyLength(params(c.Argument(0)))
		if err != nil {
			return nil, err
		}
		if l < 0 {
			return goja.Null(), nil
		}
		return rt.ToValue(l), nil
	})
}

func validateOperation(k *cryptoKey, requested string, u usage) error {
	if !strings.EqualFold(requested, k.alg) {
		return domErr("InvalidAccessError", "Requested algorithm \"%s\" does not match this CryptoKey's algorithm \"%s\".", requested, k.alg)
	}
	if k.usages&u == 0 {
		return domErr("InvalidAccessError", "Requested key usage \"%s\" does not match any usage listed in this CryptoKey.", u.names()[0])
	}
	return nil
}

// algorithm is CryptoKey.algorithm.
func (k *cryptoKey) algorithm(rt *goja.Runtime) *goja.Object {
	o := rt.NewObject()
	_ = o.Set("name", k.alg)
	switch k.alg {
	case "AES-CTR", "AES-CBC", "AES-GCM", "AES-KW":
		_ = o.Set("length", k.length)
	case "HMAC":
		_ = o.Set("hash", map[string]any{"name": k.hash})
		_ = o.Set("length", k.length)
	case "RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP":
		var pk *rsa.PublicKey
		if p, ok := k.pub.(*rsa.PublicKey); ok {
			pk = p
		} else {
			pk = &k.priv.(*rsa.PrivateKey).PublicKey
		}
		_ = o.Set("modulusLength", pk.N.BitLen())
		e := big.NewInt(int64(pk.E)).Bytes()
		u8, _ := goja.AssertConstructor(rt.Get("Uint8Array"))
		arr, _ := u8(nil, rt.ToValue(rt.NewArrayBuffer(e)))
		_ = o.Set("publicExponent", arr)
		_ = o.Set("hash", map[string]any{"name": k.hash})
	case "ECDSA", "ECDH", "NODE-ED25519":
		_ = o.Set("namedCurve", k.curve)
	}
	return o
}

// ------------------------------------------------------------------ derive

// derivedKeyLength is workerd's getKeyLength: -1 for none.
func derivedKeyLength(a algParams) (int, error) {
	name, ok := lookupAlg(a.name)
	switch {
	case !ok || !(strings.HasPrefix(name, "AES-") || name == "HMAC" || name == "HKDF" || name == "PBKDF2"):
		return 0, domErr("NotSupportedError", "Unrecognized derived key type \"%s\" requested.", a.name)
	case strings.HasPrefix(name, "AES-"):
		l, ok := a.num("length")
		if !ok {
			return 0, typeErr("Missing field \"length\" in \"derivedKeyParams\".")
		}
		if l != 128 && l != 192 && l != 256 {
			return 0, domErr("OperationError", "Derived AES key must be 128, 192, or 256 bits in length but provided %d.", l)
		}
		return int(l), nil
	case name == "HMAC":
		if l, ok := a.num("length"); ok {
			if l > 0 {
				return int(l), nil
			}
			return 0, typeErr("HMAC key length must be a non-zero unsigned long integer.")
		}
		h, err := a.requireHash("derivedKeyParams")
		if err != nil {
			return 0, err
		}
		f, _ := hashFunc(h)
		return f().BlockSize() * 8, nil
	}
	return -1, nil
}

func deriveBits(a algParams, k *cryptoKey, length int, key func(goja.Value) *cryptoKey, stop <-chan struct{}) ([]byte, error) {
	switch k.alg {
	case "PBKDF2":
		h, err := a.requireHash("algorithm")
		if err != nil {
			return nil, err
		}
		salt, err := a.requireBytes("salt")
		if err != nil {
			return nil, err
		}
		iter, ok := a.num("iterations")
		if !ok {
			return nil, typeErr("Missing field \"iterations\" in \"algorithm\".")
		}
		if length < 0 {
			return nil, domErr("OperationError", "PBKDF2 cannot derive a key with null length.")
		}
		if length%8 != 0 {
			return nil, domErr("OperationError", "PBKDF2 requires a derived key length that is a multiple of eight (requested %d).", length)
		}
		if iter <= 0 {
			return nil, domErr("OperationError", "PBKDF2 requires a positive iteration count (requested %d).", iter)
		}
		return pbkdf2Key(h, k.secret, salt, int(iter), length/8, stop)
	case "HKDF":
		h, err := a.requireHash("algorithm")
		if err != nil {
			return nil, err
		}
		salt, err := a.requireBytes("salt")
		if err != nil {
			return nil, err
		}
		info, err := a.requireBytes("info")
		if err != nil {
			return nil, err
		}
		if length < 0 {
			return nil, domErr("OperationError", "HKDF cannot derive a key with null length.")
		}
		if length%8 != 0 {
			return nil, domErr("OperationError", "HKDF requires a derived key length that is a multiple of eight (requested %d).", length)
		}
		return hkdfKey(h, k.secret, salt, info, length/8)
	case "ECDH", "X25519":
		if k.typ != "private" {
			return nil, domErr("InvalidAccessError", "The deriveBits operation is only valid for a private key, not \"%s\".", k.typ)
		}
		pv := a.get("public")
		if pv == nil {
			return nil, typeErr("Missing field \"public\" in \"derivedKeyParams\".")
		}
		pk := key(pv)
		if pk == nil {
			return nil, typeErr("Failed to execute 'deriveBits' on 'SubtleCrypto': \"public\" is not a CryptoKey.")
		}
		if pk.typ != "public" {
			return nil, domErr("InvalidAccessError", "The provided key has type \"%s\", not \"public\"", pk.typ)
		}
		if pk.alg != k.alg {
			if (pk.alg == "ECDH" || pk.alg == "ECDSA") != (k.alg == "ECDH") {
				return nil, domErr("InvalidAccessError", "Base %s private key cannot be used to derive a key from a peer %s public key", k.alg, pk.alg)
			}
			return nil, domErr("InvalidAccessError", "Private key for derivation is using \"%s\" while public key is using \"%s\".", k.alg, pk.alg)
		}
		var secret []byte
		var err error
		if k.alg == "ECDH" {
			if k.curve != pk.curve {
				return nil, domErr("InvalidAccessError", "Private key for derivation is using curve \"%s\" while public key is using \"%s\".", k.curve, pk.curve)
			}
			priv, e1 := k.priv.(*ecdsa.PrivateKey).ECDH()
			pub, e2 := pk.pub.(*ecdsa.PublicKey).ECDH()
			if e1 != nil || e2 != nil {
				return nil, domErr("OperationError", "Failed to generate shared ECDH secret")
			}
			secret, err = priv.ECDH(pub)
			if err != nil {
				return nil, domErr("OperationError", "Failed to generate shared ECDH secret")
			}
		} else {
			secret, err = k.priv.(*ecdh.PrivateKey).ECDH(pk.pub.(*ecdh.PublicKey))
			if err != nil {
				return nil, domErr("OperationError", "Detected small order secure curve points, aborting EDDH derivation")
			}
		}
		if length < 0 {
			length = len(secret) * 8
		}
		if length > len(secret)*8 {
			return nil, domErr("OperationError", "Derived key length (%d bits) is too long (should be at most %d bits).", length, len(secret)*8)
		}
		out := secret[:(length+7)/8]
		if r := length % 8; r != 0 {
			out[len(out)-1] &= byte(0xff << (8 - r))
		}
		return out, nil
	}
	return nil, domErr("NotSupportedError", "The deriveBits operation is not implemented for \"%s\".", k.alg)
}

// ------------------------------------------------------------------ sign / verify

func ecHash(a algParams) (string, crypto.Hash, error) {
	h, ok := a.str("hash")
	if !ok {
		return "", 0, typeErr("Missing \"hash\" in AlgorithmIdentifier. (ECDSA requires that the hash algorithm be specified at call time rather than on the key. This differs from other WebCrypto algorithms for historical reasons.)")
	}
	n, _, err := lookupHash(h)
	if err != nil {
		return "", 0, err
	}
	_, ch := hashFunc(n)
	return n, ch, nil
}

func digestWith(h crypto.Hash, data []byte) []byte {
	w := h.New()
	w.Write(data)
	return w.Sum(nil)
}

func curveBytes(c elliptic.Curve) int { return (c.Params().BitSize + 7) / 8 }

func sign(a algParams, k *cryptoKey, data []byte) ([]byte, error) {
	switch k.alg {
	case "HMAC":
		f, _ := hashFunc(k.hash)
		m := hmac.New(f, k.secret)
		m.Write(data)
		return m.Sum(nil), nil
	case "ECDSA", "RSASSA-PKCS1-v1_5", "RSA-PSS", "Ed25519", "NODE-ED25519":
	default:
		return nil, domErr("NotSupportedError", "The sign and verify operations are not implemented for \"%s\".", k.alg)
	}
	if k.typ != "private" {
		return nil, domErr("InvalidAccessError", "Asymmetric signing requires a private key.")
	}
	switch k.alg {
	case "ECDSA":
		_, h, err := ecHash(a)
		if err != nil {
			return nil, err
		}
		p := k.priv.(*ecdsa.PrivateKey)
		r, s, err := ecdsa.Sign(randReader, p, digestWith(h, data))
		if err != nil {
			return nil, domErr("OperationError", "ECDSA signing failed.")
		}
		n := curveBytes(p.Curve)
		out := make([]byte, 2*n)
		r.FillBytes(out[:n])
		s.FillBytes(out[n:])
		return out, nil
	case "Ed25519", "NODE-ED25519":
		return ed25519.Sign(k.priv.(ed25519.PrivateKey), data), nil
	}
	p := k.priv.(*rsa.PrivateKey)
	_, h := hashFunc(k.hash)
	size := p.Size()
	if k.alg == "RSASSA-PKCS1-v1_5" {
		if h.Size()+32 > size {
			return nil, domErr("OperationError", "key too small for signing with given digest, need at least %dbits.", 8*(h.Size()+32))
		}
		out, err := rsa.SignPKCS1v15(randReader, p, h, digestWith(h, data))
		if err != nil {
			return nil, domErr("OperationError", "RSA signing failed.")
		}
		return out, nil
	}
	salt, ok := a.num("saltLength")
	if !ok {
		return nil, domErr("DataError", "Failed to provide salt for RSA-PSS key operation which requires a salt")
	}
	if salt < 0 {
		return nil, domErr("DataError", "SaltLength for RSA-PSS must be non-negative (provided %d).", salt)
	}
	if h.Size()+2 > size {
		return nil, domErr("OperationError", "key too small for signing with given digest")
	}
	if int(salt) > size-h.Size()-2 {
		return nil, domErr("OperationError", "key too small for signing with given digest and salt length")
	}
	if salt == 0 {
		return nil, domErr("NotSupportedError", "RSA-PSS signing with saltLength 0 is not supported by cellhost.")
	}
	out, err := rsa.SignPSS(randReader, p, h, digestWith(h, data), &rsa.PSSOptions{SaltLength: pssSalt(salt)})
	if err != nil {
		return nil, domErr("OperationError", "RSA signing failed.")
	}
	return out, nil
}

// pssSalt maps a WebCrypto salt length to Go's. Go has no way to sign
// with an empty salt (0 is "auto"); verifying with "auto" accepts it.
func pssSalt(n int64) int { return int(n) }

func verify(a algParams, k *cryptoKey, sig, data []byte) (bool, error) {
	switch k.alg {
	case "HMAC":
		f, _ := hashFunc(k.hash)
		m := hmac.New(f, k.secret)
		m.Write(data)
		return subtle.ConstantTimeCompare(m.Sum(nil), sig) == 1, nil
	case "ECDSA", "RSASSA-PKCS1-v1_5", "RSA-PSS", "Ed25519", "NODE-ED25519":
	default:
		return false, domErr("NotSupportedError", "The sign and verify operations are not implemented for \"%s\".", k.alg)
	}
	if k.typ != "public" {
		return false, domErr("InvalidAccessError", "Asymmetric verification requires a public key.")
	}
	switch k.alg {
	case "ECDSA":
		_, h, err := ecHash(a)
		if err != nil {
			return false, err
		}
		p := k.pub.(*ecdsa.PublicKey)
		n := curveBytes(p.Curve)
		if len(sig) != 2*n {
			return false, nil
		}
		r, s := new(big.Int).SetBytes(sig[:n]), new(big.Int).SetBytes(sig[n:])
		return ecdsa.Verify(p, digestWith(h, data), r, s), nil
	case "Ed25519", "NODE-ED25519":
		if len(sig) != ed25519.SignatureSize {
			return false, domErr("OperationError", "Invalid %s signature length %d", k.alg, len(sig))
		}
		return ed25519.Verify(k.pub.(ed25519.PublicKey), data, sig), nil
	}
	p := k.pub.(*rsa.PublicKey)
	_, h := hashFunc(k.hash)
	if k.alg == "RSASSA-PKCS1-v1_5" {
		return rsa.VerifyPKCS1v15(p, h, digestWith(h, data), sig) == nil, nil
	}
	salt, ok := a.num("saltLength")
	if !ok {
		return false, domErr("DataError", "Failed to provide salt for RSA-PSS key operation which requires a salt")
	}
	if salt < 0 {
		return false, domErr("DataError", "SaltLength for RSA-PSS must be non-negative (provided %d).", salt)
	}
	return rsa.VerifyPSS(p, h, digestWith(h, data), sig, &rsa.PSSOptions{SaltLength: pssSalt(salt)}) == nil, nil
}

package web

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
)

var randReader = rand.Reader

// jwkDoc is a JsonWebKey as read from (or written to) JS.
type jwkDoc struct {
	obj *goja.Object
}

func (j jwkDoc) str(k string) (string, bool) {
	v := j.obj.Get(k)
	if v == nil || goja.IsUndefined(v) {
		return "", false
	}
	return v.String(), true
}

func (j jwkDoc) ops() ([]string, bool) {
	v := j.obj.Get("key_ops")
	if v == nil || goja.IsUndefined(v) {
		return nil, false
	}
	// js/crypto.js made key_ops an array of strings.
	o, ok := v.(*goja.Object)
	if !ok {
		return nil, true
	}
	var out []string
	n := int(o.Get("length").ToInteger())
	for i := 0; i < n; i++ {
		out = append(out, o.Get(strconv.Itoa(i)).String())
	}
	return out, true
}

func (j jwkDoc) ext() (bool, bool) {
	v := j.obj.Get("ext")
	if v == nil || goja.IsUndefined(v) {
		return false, false
	}
	return v.ToBoolean(), true
}

func b64url(s string) ([]byte, bool) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	return b, err == nil
}

func enc64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (j jwkDoc) bytes(k string) ([]byte, bool) {
	s, ok := j.str(k)
	if !ok {
		return nil, false
	}
	return b64url(s)
}

// allowed is the usage mask of each algorithm (workerd's per-algorithm
// validate* masks).
func allowed(alg string) usage {
	switch alg {
	case "AES-CTR", "AES-CBC", "AES-GCM":
		return uEncrypt | uDecrypt | uWrapKey | uUnwrapKey
	case "AES-KW":
		return uWrapKey | uUnwrapKey
	case "HMAC", "ECDSA", "RSASSA-PKCS1-v1_5", "RSA-PSS", "Ed25519", "NODE-ED25519":
		return uSign | uVerify
	case "RSA-OAEP":
		return uEncrypt | uDecrypt | uWrapKey | uUnwrapKey
	}
	return derivationMask // PBKDF2, HKDF, ECDH, X25519
}

func ecCurve(name string) (string, elliptic.Curve, error) {
	for _, c := range []elliptic.Curve{elliptic.P256(), elliptic.P384(), elliptic.P521()} {
		if strings.EqualFold(c.Params().Name, name) {
			return c.Params().Name, c, nil
		}
	}
	return "", nil, domErr("NotSupportedError", "Unrecognized or unimplemented EC curve \"%s\" requested.", name)
}

func importKey(format string, raw []byte, jwkObj *goja.Object, a algParams, extractable bool, usages []string) (*cryptoKey, error) {
	var jwk jwkDoc
	switch format {
	case "raw-secret", "raw-public", "raw-private", "raw-seed":
		return nil, modernFormat(format)
	case "raw", "pkcs8", "spki":
	case "jwk":
		jwk = jwkDoc{jwkObj}
		if e, ok := jwk.ext(); ok && !e && extractable {
			return nil, domErr("DataError", "JWK ext field for \"%s\" is set to false but extractable is true", a.name)
		}
	default:
		return nil, domErr("NotSupportedError", "Unrecognized key import format \"%s\".", format)
	}
	name, ok := lookupAlg(a.name)
	if !ok {
		return nil, domErr("NotSupportedError", "Unrecognized key import algorithm \"%s\" requested.", a.name)
	}
	var k *cryptoKey
	var err error
	switch name {
	case "AES-CTR", "AES-CBC", "AES-GCM", "AES-KW", "HMAC":
		k, err = importSecret(name, format, raw, jwk, a, extractable, usages)
	case "PBKDF2", "HKDF":
		if extractable {
			return nil, domErr("SyntaxError", "%s key cannot be extractable.", name)
		}
		if format != "raw" {
			if name == "HKDF" {
				return nil, domErr("NotSupportedError", "HKDF key must be imported in \"raw\" format (requested \"%s\").", format)
			}
			return nil, domErr("NotSupportedError", "PBKDF2 key must be imported in \"raw\" format (requested \"%s\").", format)
		}
		u, err := validateUsages(name, "import secret", usages, derivationMask)
		if err != nil {
			return nil, err
		}
		k = &cryptoKey{alg: name, typ: "secret", usages: u, secret: raw}
	default:
		k, err = importAsymmetric(name, format, raw, jwk, a, extractable, usages)
	}
	if err != nil {
		return nil, err
	}
	k.extractable = extractable
	if k.usages == 0 && k.typ != "public" {
		return nil, domErr("SyntaxError", "Secret/private CryptoKeys must have at least one usage.")
	}
	return k, nil
}

func modernFormat(format string) error {
	return domErr("NotSupportedError", "Key format \"%s\" requires the webcrypto_modern_algorithms flag.", format)
}

func importSecret(name, format string, raw []byte, jwk jwkDoc, a algParams, extractable bool, usages []string) (*cryptoKey, error) {
	hashName := ""
	if name == "HMAC" {
		h, err := a.requireHash("algorithm")
		if err != nil {
			return nil, err
		}
		hashName = h
	}
	u, err := validateUsages(name, "import secret", usages, allowed(name))
	if err != nil {
		return nil, err
	}
	if format != "raw" && format != "jwk" {
		return nil, domErr("NotSupportedError", "Unrecognized key import format \"%s\".", format)
	}
	key := raw
	if format == "jwk" {
		kty, _ := jwk.str("kty")
		if kty != "oct" {
			if name == "HMAC" {
				return nil, domErr("DataError", "HMAC \"jwk\" key import requires a JSON Web Key with Key Type parameter (\"kty\") equal to \"oct\" (encountered \"%s\").", kty)
			}
			return nil, domErr("DataError", "Symmetric \"jwk\" key import requires a JSON Web Key with Key Type parameter \"kty\" equal to \"oct\" (encountered \"%s\").", kty)
		}
		var ok bool
		if key, ok = jwk.bytes("k"); !ok {
			return nil, domErr("DataError", "Symmetric \"jwk\" key import requires a base64Url encoding of the key.")
		}
		if alg, ok := jwk.str("alg"); ok {
			if name == "HMAC" {
				want := "HS" + strings.TrimPrefix(hashName, "SHA-")
				if alg != want {
					return nil, domErr("DataError", "HMAC \"jwk\" key import specifies \"alg\" that is incompatible with the hash name (encountered \"%s\", expected \"%s\").", alg, want)
				}
			} else if n := len(key) * 8; n == 128 || n == 192 || n == 256 {
				want := "A" + strconv.Itoa(n) + strings.TrimPrefix(name, "AES-")
				if alg != want {
					return nil, domErr("DataError", "Symmetric \"jwk\" key contains invalid \"alg\" value \"%s\", expected \"%s\".", alg, want)
				}
			}
		}
		// workerd checks use and key_ops for AES keys only.
		if use, ok := jwk.str("use"); ok && len(usages) != 0 && name != "HMAC" && use != "enc" {
			return nil, domErr("DataError", "Symmetric \"jwk\" key must have a \"use\" of \"enc\", not \"%s\".", use)
		}
		if ops, ok := jwk.ops(); ok && name != "HMAC" {
			sort.Strings(ops)
			for i := 1; i < len(ops); i++ {
				if ops[i] == ops[i-1] {
					return nil, domErr("DataError", "Symmetric \"jwk\" key contains duplicate value \"%s\", in \"key_op\".", ops[i])
				}
			}
			for _, want := range usages {
				if i := sort.SearchStrings(ops, want); i == len(ops) || ops[i] != want {
					return nil, domErr("DataError", "\"jwk\" key missing usage \"%s\", in \"key_ops\".", want)
				}
			}
		}
	}
	k := &cryptoKey{alg: name, typ: "secret", usages: u, secret: key, hash: hashName, length: len(key) * 8}
	if name != "HMAC" {
		if n := len(key) * 8; n != 128 && n != 192 && n != 256 {
			return nil, domErr("DataError", "Imported AES key length must be 128, 192, or 256 bits but provided %d.", n)
		}
		return k, nil
	}
	if l, ok := a.num("length"); ok {
		size := int64(len(key) * 8)
		if l == 0 || l > size || l <= size-8 {
			return nil, domErr("DataError", "Imported HMAC key length (%d) must be a non-zero value up to 7 bits less than, and no greater than, the bit length of the raw key data (%d).", l, size)
		}
		k.length = int(l)
	}
	if k.length == 0 {
		return nil, domErr("DataError", "Imported HMAC key length (0) must be a non-zero value up to 7 bits less than, and no greater than, the bit length of the raw key data (0).")
	}
	return k, nil
}

// importAsymmetric covers RSA, EC and the 25519 algorithms: the usage and
// JWK checks are workerd's importAsymmetricForWebCrypto.
func importAsymmetric(name, format string, raw []byte, jwk jwkDoc, a algParams, extractable bool, usages []string) (*cryptoKey, error) {
	k := &cryptoKey{alg: name}
	mask := allowed(name)
	switch name {
	case "RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP":
		h, err := a.requireHash("algorithm")
		if err != nil {
			return nil, err
		}
		k.hash = h
	case "ECDSA", "ECDH":
		c, ok := a.str("namedCurve")
		if !ok {
			return nil, typeErr("Missing field \"namedCurve\" in \"algorithm\".")
		}
		n, _, err := ecCurve(c)
		if err != nil {
			return nil, err
		}
		k.curve = n
	case "NODE-ED25519":
		c, ok := a.str("namedCurve")
		if !ok {
			return nil, typeErr("Missing field \"namedCurve\" in \"algorithm\".")
		}
		if c != "NODE-ED25519" {
			return nil, domErr("NotSupportedError", "EDDSA curve \"%s\" isn't supported.", c)
		}
		k.curve = c
	}
	publicMaskFor := publicMask
	if name == "ECDH" || name == "X25519" {
		publicMaskFor = 0
	}
	var err error
	switch format {
	case "raw":
		if strings.HasPrefix(name, "RSA") {
			return nil, domErr("NotSupportedError", "Unrecognized key import format \"raw\".")
		}
		if k.usages, err = validateUsages(name, "import public", usages, mask&publicMaskFor); err != nil {
			return nil, err
		}
		k.typ = "public"
		switch name {
		case "ECDSA", "ECDH":
			_, c, _ := ecCurve(k.curve)
			pub, err := ecdsa.ParseUncompressedPublicKey(c, raw)
			if err != nil && len(raw) == 1+curveBytes(c) && (raw[0] == 2 || raw[0] == 3) {
				if x, y := elliptic.UnmarshalCompressed(c, raw); x != nil {
					pub, err = &ecdsa.PublicKey{Curve: c, X: x, Y: y}, nil
				}
			}
			if err != nil {
				return nil, domErr("DataError", "Failed to import raw EC key data: Invalid point encoding..")
			}
			k.pub = pub
		default:
			cn := "Ed25519"
			if name == "X25519" {
				cn = "X25519"
			}
			if len(raw) != 32 {
				return nil, domErr("DataError", "%s raw keys must be exactly 32-bytes (provided %d).", cn, len(raw))
			}
			if name == "X25519" {
				k.pub, _ = ecdh.X25519().NewPublicKey(raw)
			} else {
				k.pub = ed25519.PublicKey(raw)
			}
		}
		return k, nil
	case "spki":
		p, err := x509.ParsePKIXPublicKey(raw)
		if err != nil {
			return nil, domErr("DataError", "Invalid SPKI input.")
		}
		if k.usages, err = validateUsages(name, "import public", usages, mask&publicMaskFor); err != nil {
			return nil, err
		}
		k.typ, k.pub = "public", p
	case "pkcs8":
		p, err := x509.ParsePKCS8PrivateKey(raw)
		if err != nil {
			return nil, domErr("DataError", "Invalid PKCS8 input.")
		}
		if k.usages, err = validateUsages(name, "import private", usages, mask&privateMask); err != nil {
			return nil, err
		}
		k.typ, k.priv = "private", p
	case "jwk":
		if err := k.readJWK(jwk, usages, extractable, mask, publicMaskFor); err != nil {
			return nil, err
		}
	}
	return k, k.checkKind()
}

// checkKind checks that parsed key material fits the algorithm and fills
// pub from priv.
func (k *cryptoKey) checkKind() error {
	var pub any = k.pub
	if k.priv != nil {
		switch p := k.priv.(type) {
		case *rsa.PrivateKey:
			pub = &p.PublicKey
		case *ecdsa.PrivateKey:
			pub = &p.PublicKey
		case ed25519.PrivateKey:
			pub = p.Public()
		case *ecdh.PrivateKey:
			pub = p.PublicKey()
		}
	}
	bad := false
	switch p := pub.(type) {
	case *rsa.PublicKey:
		bad = !strings.HasPrefix(k.alg, "RSA")
	case *ecdsa.PublicKey:
		if k.alg != "ECDSA" && k.alg != "ECDH" {
			bad = true
		} else if p.Curve.Params().Name != k.curve {
			if k.alg == "ECDH" {
				return domErr("DataError", "\"algorithm.namedCurve\" \"%s\", does not match the curve specified by the input key data.", k.curve)
			}
			return domErr("DataError", "\"algorithm.namedCurve\" \"%s\" does not match the curve specified by the input key data.", k.curve)
		}
	case ed25519.PublicKey:
		bad = k.alg != "Ed25519" && k.alg != "NODE-ED25519"
	case *ecdh.PublicKey:
		bad = k.alg != "X25519" || p.Curve() != ecdh.X25519()
	default:
		bad = true
	}
	if bad {
		switch k.alg {
		case "ECDSA":
			return domErr("DataError", "Input was not an EC key.")
		case "ECDH":
			return domErr("DataError", "Input was not an EC public key nor a DH key.")
		case "RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP":
			return domErr("DataError", "Input was not an RSA key.")
		}
		return domErr("DataError", "Input was not an %s key.", k.alg)
	}
	if k.typ == "private" {
		k.pub = nil
	}
	return nil
}

func (k *cryptoKey) readJWK(jwk jwkDoc, usages []string, extractable bool, mask, publicMaskFor usage) error {
	var err error
	if _, isPriv := jwk.str("d"); isPriv {
		k.typ = "private"
		if k.usages, err = validateUsages(k.alg, "import private", usages, mask&privateMask); err != nil {
			return err
		}
		if _, ok := jwk.str("oth"); ok {
			return domErr("NotSupportedError", "Multi-prime private keys not supported.")
		}
	} else {
		k.typ = "public"
		if k.usages, err = validateUsages(k.alg, "import public", usages, mask&publicMaskFor); err != nil {
			return err
		}
	}
	expectedUse, op0, op1 := "sig", "sign", "verify"
	switch k.alg {
	case "RSA-OAEP":
		expectedUse, op0, op1 = "enc", "encrypt", "wrapKey"
	case "ECDH", "X25519":
		expectedUse, op0, op1 = "enc", "unused", "unused"
	}
	use, hasUse := jwk.str("use")
	if len(usages) > 0 && hasUse && use != expectedUse {
		return domErr("DataError", "Asymmetric \"jwk\" key import with usages requires a JSON Web Key with Public Key Use parameter \"use\" (\"%s\") equal to \"sig\".", use)
	}
	if ops, ok := jwk.ops(); ok {
		sorted := append([]string{}, ops...)
		sort.Strings(sorted)
		for i := 1; i < len(sorted); i++ {
			if sorted[i] == sorted[i-1] {
				return domErr("DataError", "A JSON Web Key's Key Operations parameter (\"key_ops\") must not contain duplicates.")
			}
		}
		if hasUse {
			if use != expectedUse {
				return domErr("DataError", "Asymmetric \"jwk\" import requires a JSON Web Key with Public Key Use \"use\" (\"%s\") equal to \"%s\".", use, expectedUse)
			}
			for _, op := range sorted {
				if k.alg == "ECDH" || k.alg == "X25519" {
					return domErr("DataError", "A JSON Web Key should have either a Public Key Use parameter (\"use\") or a Key Operations parameter (\"key_ops\"); otherwise, the parameters must be consistent with each other. For public %s keys, there are no valid usages,so keys with a non-empty \"key_ops\" parameter are not allowed.", k.alg)
				}
				if op != op0 && op != op1 {
					return domErr("DataError", "A JSON Web Key should have either a Public Key Use parameter (\"use\") or a Key Operations parameter (\"key_ops\"); otherwise, the parameters must be consistent with each other. A Public Key Use for %s would allow a Key Operations array with only \"%s\" and/or \"%s\" values (not \"%s\").", k.alg, op0, op1, op)
				}
			}
		}
		for _, want := range usages {
			if i := sort.SearchStrings(sorted, want); i == len(sorted) || sorted[i] != want {
				return domErr("DataError", "All specified key usages must be present in the JSON Web Key's Key Operations parameter (\"key_ops\").")
			}
		}
	}
	if e, ok := jwk.ext(); ok && extractable && !e {
		return domErr("DataError", "Cannot create an extractable CryptoKey from an unextractable JSON Web Key.")
	}
	kty, _ := jwk.str("kty")
	switch k.alg {
	case "RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP":
		return k.readRSAJWK(jwk, kty)
	case "ECDSA", "ECDH":
		return k.readECJWK(jwk, kty)
	}
	curveName := "Ed25519"
	if k.alg == "X25519" {
		curveName = "X25519"
	}
	if kty != "OKP" {
		return domErr("DataError", "%s \"jwk\" key imports requires a JSON Web Key with Key Type parameter \"kty\" (\"%s\") equal to \"OKP\".", curveName, kty)
	}
	crv, ok := jwk.str("crv")
	if !ok {
		return domErr("DataError", "Missing field \"crv\" for %s key.", curveName)
	}
	if crv != curveName {
		return domErr("NotSupportedError", "Only %s is supported but \"%s\" was requested.", curveName, crv)
	}
	if alg, ok := jwk.str("alg"); ok && curveName == "Ed25519" && alg != "EdDSA" {
		return domErr("DataError", "JSON Web Key Algorithm parameter \"alg\" (\"%s\") does not match requested Ed25519 curve.", alg)
	}
	if k.typ == "private" {
		d, _ := jwk.bytes("d")
		if len(d) != 32 {
			return domErr("DataError", "Invalid length %d for private key", len(d))
		}
		if curveName == "X25519" {
			k.priv, _ = ecdh.X25519().NewPrivateKey(d)
		} else {
			k.priv = ed25519.NewKeyFromSeed(d)
		}
		return nil
	}
	x, ok := jwk.bytes("x")
	if !ok {
		return domErr("DataError", "Invalid %s key in JSON Web Key; missing or invalid public key component \"x\".", curveName)
	}
	if len(x) != 32 {
		return domErr("DataError", "Invalid length %d for public key", len(x))
	}
	if curveName == "X25519" {
		k.pub, _ = ecdh.X25519().NewPublicKey(x)
	} else {
		k.pub = ed25519.PublicKey(x)
	}
	return nil
}

func (k *cryptoKey) readECJWK(jwk jwkDoc, kty string) error {
	if kty != "EC" {
		return domErr("DataError", "Elliptic curve \"jwk\" key import requires a JSON Web Key with Key Type parameter \"kty\" (\"%s\") equal to \"EC\".", kty)
	}
	_, curve, _ := ecCurve(k.curve) // workerd does not look at crv
	if alg, ok := jwk.str("alg"); ok && k.alg == "ECDSA" {
		want := map[string]string{"ES256": "P-256", "ES384": "P-384", "ES512": "P-521"}[alg]
		if want == "" {
			return domErr("NotSupportedError", "Unrecognized or unimplemented algorithm \"%s\" listed in JSON Web Key Algorithm parameter.", alg)
		}
		if want != k.curve {
			return domErr("DataError", "JSON Web Key Algorithm parameter \"alg\" (\"%s\") does not match requested curve.", alg)
		}
	}
	x, ok := jwk.bytes("x")
	if !ok {
		return domErr("DataError", "Invalid EC key in JSON Web Key; missing \"x\".")
	}
	y, ok := jwk.bytes("y")
	if !ok {
		return domErr("DataError", "Invalid EC key in JSON Web Key; missing \"y\".")
	}
	n := curveBytes(curve)
	point := append(append([]byte{4}, leftPad(x, n)...), leftPad(y, n)...)
	pub, err := ecdsa.ParseUncompressedPublicKey(curve, point)
	if err != nil || len(x) > n || len(y) > n {
		return domErr("OperationError", "Invalid EC key; public key coordinates \"x\" and \"y\" are invalid: Point is not on curve..")
	}
	if k.typ == "public" {
		k.pub = pub
		return nil
	}
	d, ok := jwk.bytes("d")
	if !ok || len(d) > n {
		return domErr("OperationError", "Invalid EC key; private key component \"d\" is invalid.")
	}
	priv, err := ecdsa.ParseRawPrivateKey(curve, leftPad(d, n))
	if err != nil {
		return domErr("OperationError", "Invalid EC key; private key component \"d\" is invalid.")
	}
	if !priv.PublicKey.Equal(pub) {
		return domErr("DataError", "Invalid EC key in JSON Web Key.")
	}
	k.priv = priv
	return nil
}

func leftPad(b []byte, n int) []byte {
	if len(b) >= n {
		return b
	}
	return append(make([]byte, n-len(b)), b...)
}

func (k *cryptoKey) readRSAJWK(jwk jwkDoc, kty string) error {
	if kty != "RSA" {
		// sic: workerd names RSASSA-PKCS1-v1_5 for every RSA algorithm.
		return domErr("DataError", "RSASSA-PKCS1-v1_5 \"jwk\" key import requires a JSON Web Key with Key Type parameter \"kty\" (\"%s\") equal to \"RSA\".", kty)
	}
	if alg, ok := jwk.str("alg"); ok {
		// Only the hash named by alg has to match (as in workerd).
		h, known := rsaJWKHashes[alg]
		if !known {
			return domErr("NotSupportedError", "Unrecognized or unimplemented algorithm \"%s\" listed in JSON Web Key Algorithm parameter.", alg)
		}
		if h != k.hash {
			// sic: workerd names the given alg twice.
			return domErr("DataError", "JSON Web Key Algorithm parameter \"alg\" (\"%s\") does not match requested hash algorithm \"%s\".", alg, alg)
		}
	}
	num := func(field, what string) (*big.Int, error) {
		b, ok := jwk.bytes(field)
		if !ok || len(b) == 0 {
			return nil, domErr("DataError", "Invalid RSA key in JSON Web Key; missing or invalid %s parameter (\"%s\").", what, field)
		}
		return new(big.Int).SetBytes(b), nil
	}
	n, err := num("n", "Modulus")
	if err != nil {
		return err
	}
	e, err := num("e", "Exponent")
	if err != nil {
		return err
	}
	pub := &rsa.PublicKey{N: n, E: int(e.Int64())}
	if k.typ == "public" {
		k.pub = pub
		return nil
	}
	d, err := num("d", "Private Exponent")
	if err != nil {
		return err
	}
	for _, f := range []string{"p", "q", "dp", "dq", "qi"} {
		if _, ok := jwk.str(f); !ok {
			return domErr("DataError", "Invalid RSA private key in JSON Web Key; if one Prime Factor or CRT Exponent/Coefficient parameter is present, then they must all be present (\"p\", \"q\", \"dp\", \"dq\", \"qi\").")
		}
	}
	p, err := num("p", "First Prime Factor")
	if err != nil {
		return err
	}
	q, err := num("q", "Second Prime Factor")
	if err != nil {
		return err
	}
	priv := &rsa.PrivateKey{PublicKey: *pub, D: d, Primes: []*big.Int{p, q}}
	if err := priv.Validate(); err != nil {
		return domErr("DataError", "Invalid RSA key in JSON Web Key; failed to set key parameters")
	}
	priv.Precompute()
	k.priv = priv
	return nil
}

var rsaJWKHashes = map[string]string{
	"RS1": "SHA-1", "RS256": "SHA-256", "RS384": "SHA-384", "RS512": "SHA-512",
	"PS1": "SHA-1", "PS256": "SHA-256", "PS384": "SHA-384", "PS512": "SHA-512",
	"RSA-OAEP": "SHA-1", "RSA-OAEP-256": "SHA-256", "RSA-OAEP-384": "SHA-384", "RSA-OAEP-512": "SHA-512",
}

func rsaJWKAlg(alg, hash string) string {
	bits := strings.TrimPrefix(hash, "SHA-")
	switch alg {
	case "RSA-PSS":
		return "PS" + bits
	case "RSA-OAEP":
		if hash == "SHA-1" {
			return "RSA-OAEP"
		}
		return "RSA-OAEP-" + bits
	}
	return "RS" + bits
}

// ------------------------------------------------------------------ export

func exportKey(rt *goja.Runtime, format string, k *cryptoKey) (goja.Value, error) {
	if !k.extractable {
		return nil, domErr("InvalidAccessError", "Attempt to export non-extractable %s key.", k.alg)
	}
	switch format {
	case "raw-secret", "raw-public", "raw-private", "raw-seed":
		return nil, modernFormat(format)
	}
	buf := func(b []byte) (goja.Value, error) { return rt.ToValue(rt.NewArrayBuffer(b)), nil }
	if k.typ == "secret" {
		if format != "raw" && format != "jwk" {
			if k.alg == "HMAC" {
				return nil, domErr("NotSupportedError", "Unimplemented key export format \"%s\".", format)
			}
			return nil, domErr("NotSupportedError", "%s key only supports exporting \"raw\", \"raw-secret\" & \"jwk\", not \"%s\".", k.alg, format)
		}
		if format == "raw" {
			return buf(append([]byte{}, k.secret...))
		}
		alg := "A" + strconv.Itoa(len(k.secret)*8) + strings.TrimPrefix(k.alg, "AES-")
		if k.alg == "HMAC" {
			alg = "HS" + strings.TrimPrefix(k.hash, "SHA-")
		}
		return jwkObject(rt, k, [][2]string{{"kty", "oct"}, {"alg", alg}, {"k", enc64(k.secret)}}), nil
	}
	switch format {
	case "pkcs8":
		if k.typ != "private" {
			return nil, domErr("InvalidAccessError", "Asymmetric pkcs8 export requires private key (not \"%s\").", k.typ)
		}
		b, err := x509.MarshalPKCS8PrivateKey(k.priv)
		if err != nil {
			return nil, domErr("OperationError", "Private key export failed.")
		}
		return buf(b)
	case "spki":
		if k.typ != "public" {
			return nil, domErr("InvalidAccessError", "Asymmetric spki export requires public key (not \"%s\").", k.typ)
		}
		b, err := x509.MarshalPKIXPublicKey(k.pub)
		if err != nil {
			return nil, domErr("OperationError", "Public key export failed.")
		}
		return buf(b)
	case "raw":
		switch p := k.pub.(type) {
		case *ecdsa.PublicKey:
			b, _ := p.Bytes()
			return buf(b)
		case ed25519.PublicKey:
			return buf(append([]byte{}, p...))
		case *ecdh.PublicKey:
			return buf(p.Bytes())
		}
		switch k.alg {
		case "ECDSA", "ECDH":
			return nil, domErr("InvalidAccessError", "Raw export of elliptic curve keys is only allowed for public keys.")
		case "Ed25519", "NODE-ED25519", "X25519":
			return nil, domErr("InvalidAccessError", "Raw export of %s keys is only allowed for public keys.", k.alg)
		}
		return nil, domErr("InvalidAccessError", "Cannot export \"%s\" in \"raw\" format.", k.alg)
	case "jwk":
		return jwkObject(rt, k, k.asymmetricJWK()), nil
	}
	return nil, domErr("InvalidAccessError", "Cannot export \"%s\" in \"%s\" format.", k.alg, format)
}

func (k *cryptoKey) asymmetricJWK() [][2]string {
	var f [][2]string
	add := func(name string, b []byte) { f = append(f, [2]string{name, enc64(b)}) }
	switch k.alg {
	case "RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP":
		f = append(f, [2]string{"kty", "RSA"}, [2]string{"alg", rsaJWKAlg(k.alg, k.hash)})
		pub, _ := k.pub.(*rsa.PublicKey)
		priv, _ := k.priv.(*rsa.PrivateKey)
		if priv != nil {
			pub = &priv.PublicKey
		}
		add("n", pub.N.Bytes())
		add("e", big.NewInt(int64(pub.E)).Bytes())
		if priv != nil {
			add("d", priv.D.Bytes())
			add("p", priv.Primes[0].Bytes())
			add("q", priv.Primes[1].Bytes())
			add("dp", priv.Precomputed.Dp.Bytes())
			add("dq", priv.Precomputed.Dq.Bytes())
			add("qi", priv.Precomputed.Qinv.Bytes())
		}
	case "ECDSA", "ECDH":
		pub, _ := k.pub.(*ecdsa.PublicKey)
		priv, _ := k.priv.(*ecdsa.PrivateKey)
		if priv != nil {
			pub = &priv.PublicKey
		}
		b, _ := pub.Bytes()
		n := (len(b) - 1) / 2
		f = append(f, [2]string{"kty", "EC"}, [2]string{"crv", k.curve})
		add("x", b[1:1+n])
		add("y", b[1+n:])
		if priv != nil {
			d, _ := priv.Bytes()
			add("d", d)
		}
	case "X25519":
		f = append(f, [2]string{"kty", "OKP"}, [2]string{"crv", "X25519"})
		if priv, ok := k.priv.(*ecdh.PrivateKey); ok {
			add("x", priv.PublicKey().Bytes())
			add("d", priv.Bytes())
		} else {
			add("x", k.pub.(*ecdh.PublicKey).Bytes())
		}
	default: // Ed25519, NODE-ED25519
		f = append(f, [2]string{"kty", "OKP"}, [2]string{"crv", "Ed25519"})
		if k.alg == "Ed25519" {
			f = append(f, [2]string{"alg", "EdDSA"})
		}
		if priv, ok := k.priv.(ed25519.PrivateKey); ok {
			add("x", priv.Public().(ed25519.PublicKey))
			add("d", priv.Seed())
		} else {
			add("x", k.pub.(ed25519.PublicKey))
		}
	}
	return f
}

// jwkObject builds a JsonWebKey in workerd's member order (kty, use,
// key_ops, alg, ext, crv, x, y, d, n, e, p, q, dp, dq, qi, k).
func jwkObject(rt *goja.Runtime, k *cryptoKey, fields [][2]string) *goja.Object {
	get := func(name string) (string, bool) {
		for _, f := range fields {
			if f[0] == name {
				return f[1], true
			}
		}
		return "", false
	}
	o := rt.NewObject()
	// workerd's JsonWebKey has every member, undefined when absent.
	for _, name := range []string{"kty", "use", "key_ops", "alg", "ext", "crv", "x", "y", "d", "n", "e", "p", "q", "dp", "dq", "qi", "oth", "k", "pub", "priv"} {
		switch name {
		case "key_ops":
			ops := k.usages.names()
			if ops == nil {
				ops = []string{}
			}
			_ = o.Set(name, ops)
		case "ext":
			_ = o.Set(name, true)
		default:
			if v, ok := get(name); ok {
				_ = o.Set(name, v)
			} else {
				_ = o.Set(name, goja.Undefined())
			}
		}
	}
	return o
}

// ------------------------------------------------------------------ generate

func generateKey(a algParams, extractable bool, usages []string) (pub, priv *cryptoKey, err error) {
	name, ok := lookupAlg(a.name)
	if !ok || name == "PBKDF2" || name == "HKDF" {
		return nil, nil, domErr("NotSupportedError", "Unrecognized key generation algorithm \"%s\" requested.", a.name)
	}
	switch name {
	case "AES-CTR", "AES-CBC", "AES-GCM", "AES-KW":
		u, err := validateUsages(name, "generate", usages, allowed(name))
		if err != nil {
			return nil, nil, err
		}
		l, ok := a.num("length")
		if !ok {
			return nil, nil, typeErr("Missing field \"length\" in \"algorithm\".")
		}
		if l != 128 && l != 192 && l != 256 {
			return nil, nil, domErr("OperationError", "Generated AES key length must be 128, 192, or 256 bits but requested %d.", l)
		}
		b := make([]byte, l/8)
		_, _ = rand.Read(b)
		k := &cryptoKey{alg: name, typ: "secret", extractable: extractable, usages: u, secret: b, length: int(l)}
		return nil, k, secretUsed(k)
	case "HMAC":
		h, err := a.requireHash("algorithm")
		if err != nil {
			return nil, nil, err
		}
		u, err := validateUsages(name, "generate", usages, allowed(name))
		if err != nil {
			return nil, nil, err
		}
		f, _ := hashFunc(h)
		l := int64(f().BlockSize() * 8)
		if v, ok := a.num("length"); ok {
			l = v
		}
		if l <= 0 {
			return nil, nil, domErr("OperationError", "HMAC key length must be a non-zero unsigned long integer (requested %d).", l)
		}
		b := make([]byte, (l+7)/8)
		_, _ = rand.Read(b)
		if r := l % 8; r != 0 {
			b[len(b)-1] &= byte(0xff << (8 - r))
		}
		k := &cryptoKey{alg: name, typ: "secret", extractable: extractable, usages: u, secret: b, hash: h, length: int(l)}
		return nil, k, secretUsed(k)
	}
	pair := func(p any, curve string) (*cryptoKey, *cryptoKey, error) {
		pubMask := publicMask
		if name == "ECDH" || name == "X25519" {
			pubMask = 0
		}
		u, err := validateUsages(name, "generate", usages, allowed(name))
		if err != nil {
			return nil, nil, err
		}
		priv := &cryptoKey{alg: name, typ: "private", extractable: extractable, usages: u & privateMask, curve: curve, priv: p}
		pub := &cryptoKey{alg: name, typ: "public", extractable: true, usages: u & pubMask, curve: curve}
		if err := priv.checkKind(); err != nil {
			return nil, nil, err
		}
		switch p := p.(type) {
		case *rsa.PrivateKey:
			pub.pub = &p.PublicKey
		case *ecdsa.PrivateKey:
			pub.pub = &p.PublicKey
		case ed25519.PrivateKey:
			pub.pub = p.Public()
		case *ecdh.PrivateKey:
			pub.pub = p.PublicKey()
		}
		if priv.usages == 0 {
			return nil, nil, domErr("SyntaxError", "Attempt to generate asymmetric keys with no valid private key usages.")
		}
		return pub, priv, nil
	}
	switch name {
	case "RSASSA-PKCS1-v1_5", "RSA-PSS", "RSA-OAEP":
		e, ok := a.bytes("publicExponent")
		if !ok {
			return nil, nil, typeErr("Missing field \"publicExponent\" in \"algorithm\".")
		}
		h, err := a.requireHash("algorithm")
		if err != nil {
			return nil, nil, err
		}
		bits, ok := a.num("modulusLength")
		if !ok {
			return nil, nil, typeErr("Missing field \"modulusLength\" in \"algorithm\".")
		}
		if _, err := validateUsages(name, "generate", usages, allowed(name)); err != nil {
			return nil, nil, err
		}
		ev := new(big.Int).SetBytes(e)
		if !ev.IsInt64() || ev.Int64() > 1<<32 {
			return nil, nil, domErr("OperationError", "The \"publicExponent\" must be either 3 or 65537, but got a number larger than 2^32.")
		}
		if v := ev.Int64(); v != 3 && v != 65537 {
			return nil, nil, domErr("OperationError", "The \"publicExponent\" must be either 3 or 65537, but got %d.", v)
		} else if v == 3 {
			return nil, nil, domErr("NotSupportedError", "RSA key generation with publicExponent 3 is not supported by cellhost.")
		}
		if bits <= 0 || bits > 16384 {
			return nil, nil, domErr("OperationError", "modulusLength must be greater than zero and less than or equal to 16384")
		}
		key, err := rsa.GenerateKey(rand.Reader, int(bits))
		if err != nil {
			return nil, nil, domErr("OperationError", "RSA key generation failed: %v", err)
		}
		pub, priv, err := pair(key, "")
		if err == nil {
			pub.hash, priv.hash = h, h
		}
		return pub, priv, err
	case "ECDSA", "ECDH":
		c, ok := a.str("namedCurve")
		if !ok {
			return nil, nil, typeErr("Missing field \"namedCurve\" in \"algorithm\".")
		}
		n, curve, err := ecCurve(c)
		if err != nil {
			return nil, nil, err
		}
		key, _ := ecdsa.GenerateKey(curve, rand.Reader)
		return pair(key, n)
	case "NODE-ED25519":
		c, ok := a.str("namedCurve")
		if !ok {
			return nil, nil, typeErr("Missing field \"namedCurve\" in \"algorithm\".")
		}
		if c != "NODE-ED25519" {
			return nil, nil, domErr("NotSupportedError", "EDDSA curve \"%s\" isn't supported.", c)
		}
		_, key, _ := ed25519.GenerateKey(rand.Reader)
		return pair(key, c)
	case "Ed25519":
		_, key, _ := ed25519.GenerateKey(rand.Reader)
		return pair(key, "")
	case "X25519":
		key, _ := ecdh.X25519().GenerateKey(rand.Reader)
		return pair(key, "")
	}
	return nil, nil, domErr("NotSupportedError", "Unrecognized key generation algorithm \"%s\" requested.", a.name)
}

func secretUsed(k *cryptoKey) error {
	if k.usages == 0 {
		return domErr("SyntaxError", "Secret/private CryptoKeys must have at least one usage.")
	}
	return nil
}

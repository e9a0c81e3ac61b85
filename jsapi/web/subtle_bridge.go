package web

import (
	"github.com/cellhost/cellhost/third_party/goja"
)

// CryptoKeyMaterial returns the key behind a CryptoKey (for node:crypto's
// KeyObject.from): typ is "secret" with the key bytes, or "public" or
// "private" with the Go key (*rsa.PublicKey, *rsa.PrivateKey,
// *ecdsa.PublicKey, *ecdsa.PrivateKey, ed25519.PublicKey,
// ed25519.PrivateKey, *ecdh.PublicKey, *ecdh.PrivateKey). ok is false when
// v is not a CryptoKey.
func CryptoKeyMaterial(rt *goja.Runtime, v goja.Value) (typ string, secret []byte, key any, ok bool) {
	st := stateOf(rt)
	if st == nil {
		return "", nil, nil, false
	}
	h, err := st.cryptoKeyHandle(goja.Undefined(), v)
	if err != nil {
		return "", nil, nil, false
	}
	k, ok := h.Export().(*cryptoKey)
	if !ok {
		return "", nil, nil, false
	}
	switch k.typ {
	case "secret":
		return k.typ, append([]byte{}, k.secret...), nil, true
	case "public":
		return k.typ, nil, k.pub, true
	}
	return k.typ, nil, k.priv, true
}

// ImportCryptoKey is crypto.subtle.importKey done synchronously (for
// node:crypto's KeyObject.toCryptoKey): format is "raw", "spki" or "pkcs8";
// algorithm and usages are the JS arguments. The error is the one importKey
// would reject with.
func ImportCryptoKey(rt *goja.Runtime, format string, data []byte, algorithm goja.Value, extractable bool, usages goja.Value) (goja.Value, error) {
	u8, _ := goja.AssertConstructor(rt.Get("Uint8Array"))
	arr, err := u8(nil, rt.ToValue(rt.NewArrayBuffer(append([]byte{}, data...))))
	if err != nil {
		return nil, err
	}
	return stateOf(rt).importCryptoKey(goja.Undefined(), rt.ToValue(format), arr, algorithm, rt.ToValue(extractable), usages)
}

package web

import (
	"bytes"
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"os"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

// TestSubtle_wptVectors runs a subset of the web-platform-tests WebCryptoAPI
// vectors (testdata/webcrypto_wpt.json names the files they come from):
// AES-GCM with every tag length, with and without additional data, the bad
// tag lengths, and Ed25519 sign/verify.
func TestSubtle_wptVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/webcrypto_wpt.json")
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jstest.Run(t, rt, "var V = "+string(raw)+`;
		var h2b = (h) => Uint8Array.from(h.match(/../g) || [], (x) => parseInt(x, 16));
		var b2h = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");`)
	jsCases(t, rt, [][2]string{
		{`attemptAsync(async () => {
			const g = V.aesGcm, s = crypto.subtle, out = [];
			const key = await s.importKey("raw", h2b(g.key), "AES-GCM", false, ["encrypt", "decrypt"]);
			const plain = new TextEncoder().encode(g.plaintext);
			for (const tagLength of g.tagLengths) {
				for (const [ad, tag] of [[h2b(g.additionalData), g.tag], [undefined, g.tagWithEmptyAd]]) {
					const alg = { name: "AES-GCM", iv: h2b(g.iv), tagLength };
					if (ad) alg.additionalData = ad;
					const want = g.ciphertext + tag.slice(0, tagLength / 4);
					const ct = b2h(await s.encrypt(alg, key, plain));
					const pt = new TextDecoder().decode(await s.decrypt(alg, key, h2b(want)));
					const bad = h2b(want); bad[bad.length - 1] ^= 1;
					const rejected = await s.decrypt(alg, key, bad).then(() => "accepted", (e) => e.name);
					out.push(tagLength + ":" + (ct === want) + (pt === g.plaintext) + rejected);
				}
			}
			for (const tagLength of g.badTagLengths) {
				out.push(await s.encrypt({ name: "AES-GCM", iv: h2b(g.iv), tagLength }, key, plain).then(() => "accepted", (e) => e.message));
			}
			return out.join("\n");
		})`, "32:truetrueOperationError\n32:truetrueOperationError\n" +
			"64:truetrueOperationError\n64:truetrueOperationError\n" +
			"96:truetrueOperationError\n96:truetrueOperationError\n" +
			"104:truetrueOperationError\n104:truetrueOperationError\n" +
			"112:truetrueOperationError\n112:truetrueOperationError\n" +
			"120:truetrueOperationError\n120:truetrueOperationError\n" +
			"128:truetrueOperationError\n128:truetrueOperationError\n" +
			"Invalid AES-GCM tag length 24.\nInvalid AES-GCM tag length 48.\nInvalid AES-GCM tag length 72.\n" +
			"Invalid AES-GCM tag length 95.\nInvalid AES-GCM tag length 129.\nInvalid AES-GCM tag length 256."},
		{`attemptAsync(async () => {
			const s = crypto.subtle, out = [];
			for (const v of V.ed25519) {
				const priv = await s.importKey("pkcs8", h2b(v.pkcs8), "Ed25519", false, ["sign"]);
				const pub = await s.importKey("spki", h2b(v.spki), "Ed25519", true, ["verify"]);
				const sig = b2h(await s.sign("Ed25519", priv, h2b(v.data)));
				const bad = h2b(v.signature); bad[0] ^= 1;
				out.push([sig === v.signature, await s.verify("Ed25519", pub, h2b(v.signature), h2b(v.data)),
					await s.verify("Ed25519", pub, bad, h2b(v.data)), b2h(await s.exportKey("spki", pub)) === v.spki].join());
			}
			return out.join(" ");
		})`, "true,true,false,true true,true,false,true"},
	})
}

// TestAESKeyWrap checks the hand-written AES Key Wrap against RFC 3394
// section 4's vectors (Go's standard library has no AES-KW).
func TestAESKeyWrap(t *testing.T) {
	h := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, c := range []struct{ name, kek, data, want string }{
		{"4.1", "000102030405060708090A0B0C0D0E0F", "00112233445566778899AABBCCDDEEFF", "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5"},
		{"4.2", "000102030405060708090A0B0C0D0E0F1011121314151617", "00112233445566778899AABBCCDDEEFF", "96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D"},
		{"4.3", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "00112233445566778899AABBCCDDEEFF", "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7"},
		{"4.4", "000102030405060708090A0B0C0D0E0F1011121314151617", "00112233445566778899AABBCCDDEEFF0001020304050607", "031D33264E15D33268F24EC260743EDCE1C6C7DDEE725A936BA814915C6762D2"},
		{"4.5", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "00112233445566778899AABBCCDDEEFF0001020304050607", "A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1"},
		{"4.6", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F", "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21"},
	} {
		got := aesKeyWrap(h(c.kek), h(c.data))
		if !bytes.Equal(got, h(c.want)) {
			t.Errorf("%s: wrap = %X, want %s", c.name, got, c.want)
		}
		back, ok := aesKeyUnwrap(h(c.kek), got)
		if !ok || !bytes.Equal(back, h(c.data)) {
			t.Errorf("%s: unwrap = %X, %v", c.name, back, ok)
		}
		got[5] ^= 1
		if _, ok := aesKeyUnwrap(h(c.kek), got); ok {
			t.Errorf("%s: a tampered wrapping unwrapped", c.name)
		}
	}
}

// FuzzSubtleImport feeds arbitrary bytes to every buffer import format and
// algorithm: import either fails with an error or gives a key whose export
// works; it never panics.
func FuzzSubtleImport(f *testing.F) {
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, ed, _ := ed25519.GenerateKey(rand.Reader)
	x, _ := ecdh.X25519().GenerateKey(rand.Reader)
	rk, _ := rsa.GenerateKey(rand.Reader, 1024)
	for _, k := range []any{ec, ed, x, rk} {
		b, _ := x509.MarshalPKCS8PrivateKey(k)
		f.Add(b)
		if p, ok := k.(interface{ Public() crypto.PublicKey }); ok {
			b, _ := x509.MarshalPKIXPublicKey(p.Public())
			f.Add(b)
		}
	}
	pb, _ := ec.PublicKey.Bytes()
	f.Add(pb)
	f.Add([]byte{})
	rt := goja.New()
	algs := []map[string]any{
		{"name": "ECDSA", "namedCurve": "P-256"}, {"name": "ECDH", "namedCurve": "P-256"},
		{"name": "Ed25519"}, {"name": "X25519"}, {"name": "RSA-PSS", "hash": "SHA-256"},
		{"name": "RSA-OAEP", "hash": "SHA-1"}, {"name": "AES-GCM"}, {"name": "HMAC", "hash": "SHA-1"}, {"name": "HKDF"},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range algs {
			o := rt.ToValue(a).ToObject(rt)
			p := algParams{obj: o, name: a["name"].(string)}
			for _, format := range []string{"raw", "spki", "pkcs8"} {
				for _, usages := range [][]string{nil, {"sign"}, {"verify"}, {"deriveBits"}, {"encrypt"}, {"decrypt"}} {
					k, err := importKey(format, data, nil, p, true, usages)
					if err != nil {
						continue
					}
					for _, ef := range []string{"raw", "spki", "pkcs8", "jwk"} {
						_, _ = exportKey(rt, ef, k)
					}
				}
			}
		}
	})
}

// TestDigestStream drives crypto.DigestStream, a WritableStream (the
// runtime's own, web-streams-polyfill).
func TestDigestStream(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	if got := jstest.Run(t, rt, `new crypto.DigestStream("SHA-256") instanceof WritableStream`).String(); got != "true" {
		t.Fatalf("DigestStream is a WritableStream: %s", got)
	}
	jsCases(t, rt, [][2]string{
		{`attemptAsync(async () => { const d = new crypto.DigestStream("SHA-256"); const w = d.getWriter(); await w.write(new Uint8Array([1, 2])); await w.write("\u0003"); await w.close(); return [...new Uint8Array(await d.digest)].slice(0, 4).join(); })`, "3,144,88,198"},
		{`attemptAsync(async () => new crypto.DigestStream("SHA-3"))`, "NotSupportedError: Unrecognized or unimplemented digest algorithm requested."},
		{`attemptAsync(async () => { const d = new crypto.DigestStream({ name: "md5" }); const w = d.getWriter(); await w.close(); return new Uint8Array(await d.digest).length; })`, "16"},
	})
}

package web

import (
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

// BenchmarkSubtle times one crypto.subtle call from JS to its settled
// promise, keys imported beforehand: the cost a Worker pays per JWT
// signature or payload encryption.
func BenchmarkSubtle(b *testing.B) {
	for _, c := range []struct{ name, setup, call string }{
		{"HMAC-SHA256-sign-1KiB", `globalThis.K = await crypto.subtle.importKey("raw", new Uint8Array(32), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);`,
			`() => crypto.subtle.sign("HMAC", K, D)`},
		{"AES-GCM-encrypt-1KiB", `globalThis.K = await crypto.subtle.importKey("raw", new Uint8Array(16), "AES-GCM", false, ["encrypt"]);`,
			`() => crypto.subtle.encrypt({ name: "AES-GCM", iv: new Uint8Array(12) }, K, D)`},
		{"ECDSA-P256-sign", `globalThis.K = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"])).privateKey;`,
			`() => crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, K, D)`},
		{"Ed25519-sign", `globalThis.K = (await crypto.subtle.generateKey("Ed25519", false, ["sign"])).privateKey;`,
			`() => crypto.subtle.sign("Ed25519", K, D)`},
		{"RSA2048-PKCS1-sign", `globalThis.K = (await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, false, ["sign"])).privateKey;`,
			`() => crypto.subtle.sign("RSASSA-PKCS1-v1_5", K, D)`},
		{"importKey-jwk-EC", `globalThis.J = await crypto.subtle.exportKey("jwk", (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"])).privateKey);`,
			`() => crypto.subtle.importKey("jwk", J, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"])`},
	} {
		b.Run(c.name, func(b *testing.B) {
			rt, _ := newWebRuntime(b)
			jstest.Run(b, rt, `globalThis.D = new Uint8Array(1024); (async () => { `+c.setup+` })()`)
			f, ok := goja.AssertFunction(jstest.Run(b, rt, "("+c.call+")"))
			if !ok {
				b.Fatal("not a function")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v, err := f(goja.Undefined())
				if err != nil {
					b.Fatal(err)
				}
				benchSettled(b, v)
			}
		})
	}
}

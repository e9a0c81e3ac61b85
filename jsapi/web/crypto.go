package web

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// cryptoNatives are crypto.randomUUID, getRandomValues and subtle.digest's
// natives.
func cryptoNatives(rt *goja.Runtime, n natives) {
	n.set("randomUUID", func(goja.FunctionCall) goja.Value {
		var b [16]byte
		_, _ = rand.Read(b[:])
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		const hx = "0123456789abcdef"
		out := make([]byte, 0, 36)
		for i, x := range b {
			if i == 4 || i == 6 || i == 8 || i == 10 {
				out = append(out, '-')
			}
			out = append(out, hx[x>>4], hx[x&15])
		}
		return rt.ToValue(string(out))
	})
	// fillRandom(u8) fills the bytes in place.
	n.setE("fillRandom", func(c goja.FunctionCall) (goja.Value, error) {
		b, err := bytesOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		_, _ = rand.Read(b)
		return goja.Undefined(), nil
	})
	// digestNew(name) / digestUpdate(h, u8) / digestFinal(h): crypto.DigestStream.
	n.setE("digestNew", func(c goja.FunctionCall) (goja.Value, error) {
		f, _ := hashFunc(c.Argument(0).String())
		if f == nil {
			return nil, jserr.New("NotSupportedError", "Unrecognized or unimplemented digest algorithm requested.")
		}
		return rt.ToValue(&streamHash{f()}), nil
	})
	n.setE("digestUpdate", func(c goja.FunctionCall) (goja.Value, error) {
		b, err := bytesOf(c.Argument(1))
		if err != nil {
			return nil, err
		}
		c.Argument(0).Export().(*streamHash).h.Write(b)
		return goja.Undefined(), nil
	})
	n.set("digestFinal", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(rt.NewArrayBuffer(c.Argument(0).Export().(*streamHash).h.Sum(nil)))
	})
	n.setE("digest", func(c goja.FunctionCall) (goja.Value, error) {
		data, err := bytesOf(c.Argument(1))
		if err != nil {
			return nil, err
		}
		out, ok := digest(c.Argument(0).String(), data)
		if !ok {
			return nil, jserr.New("NotSupportedError", "Unrecognized or unimplemented digest algorithm requested.")
		}
		return rt.ToValue(rt.NewArrayBuffer(out)), nil
	})
}

// streamHash is a crypto.DigestStream's running hash.
type streamHash struct{ h hash.Hash }

// digest implements crypto.subtle.digest's hash step.
func digest(name string, data []byte) ([]byte, bool) {
	var h hash.Hash
	switch name {
	case "SHA-1":
		h = sha1.New()
	case "SHA-256":
		h = sha256.New()
	case "SHA-384":
		h = sha512.New384()
	case "SHA-512":
		h = sha512.New()
	case "MD5":
		h = md5.New()
	default:
		return nil, false
	}
	h.Write(data)
	return h.Sum(nil), true
}

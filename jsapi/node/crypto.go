package node

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"hash"
	"math/big"
	"strings"
	"unicode/utf16"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/buffer"
)

// hashes are the digests node:crypto's createHash and createHmac take.
var hashes = map[string]func() hash.Hash{
	"md5":        md5.New,
	"sha1":       sha1.New,
	"sha224":     sha256.New224,
	"sha256":     sha256.New,
	"sha384":     sha512.New384,
	"sha512":     sha512.New,
	"sha512-224": sha512.New512_224,
	"sha512-256": sha512.New512_256,
}

func hashNames() []string {
	return []string{"md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256"}
}

// plainError is new Error(msg).
func plainError(rt *goja.Runtime, msg string) *goja.Object { return plainErrorOf(rt, "Error", msg) }

// plainRangeError is a RangeError without a code, as workerd's JSG_REQUIRE
// throws.
func plainRangeError(rt *goja.Runtime, msg string) *goja.Object {
	return plainErrorOf(rt, "RangeError", msg)
}

func plainErrorOf(rt *goja.Runtime, ctor, msg string) *goja.Object {
	c, _ := goja.AssertConstructor(rt.Get(ctor))
	e, err := c(nil, rt.ToValue(msg))
	if err != nil {
		panic(err)
	}
	return e
}

func nodeError(rt *goja.Runtime, ctor, code, msg string) *goja.Object {
	c, _ := goja.AssertConstructor(rt.Get(ctor))
	e, err := c(nil, rt.ToValue(msg))
	if err != nil {
		panic(err)
	}
	_ = e.Set("code", code)
	return e
}

// extraEncoding names the encodings goja_nodejs's codecs lack (see the
// buffer module in modules.js): "latin1", "ascii", "utf16le" or "".
func extraEncoding(enc goja.Value) string {
	if enc == nil || goja.IsUndefined(enc) || goja.IsNull(enc) {
		return ""
	}
	switch strings.ToLower(enc.String()) {
	case "latin1", "binary":
		return "latin1"
	case "ascii":
		return "ascii"
	case "ucs2", "ucs-2", "utf16le", "utf-16le":
		return "utf16le"
	}
	return ""
}

// data reads a string (in enc, default utf8) or a buffer source.
func data(rt *goja.Runtime, v, enc goja.Value) []byte {
	if s, ok := v.Export().(string); ok {
		switch extraEncoding(enc) {
		case "latin1", "ascii":
			u := utf16.Encode([]rune(s))
			out := make([]byte, len(u))
			for i, c := range u {
				out[i] = byte(c)
			}
			return out
		case "utf16le":
			u := utf16.Encode([]rune(s))
			out := make([]byte, 2*len(u))
			for i, c := range u {
				out[2*i], out[2*i+1] = byte(c), byte(c>>8)
			}
			return out
		}
		return buffer.DecodeBytes(rt, rt.ToValue(s), enc)
	}
	if o, ok := v.(*goja.Object); ok {
		switch x := o.Export().(type) {
		case goja.ArrayBuffer:
			return x.Bytes()
		case []byte:
			return x
		}
		if bv := o.Get("buffer"); bv == nil {
			// not a view
		} else if buf, ok := bv.Export().(goja.ArrayBuffer); ok {
			off, n := o.Get("byteOffset").ToInteger(), o.Get("byteLength").ToInteger()
			return buf.Bytes()[off : off+n]
		}
	}
	panic(nodeError(rt, "TypeError", "ERR_INVALID_ARG_TYPE", "The \"data\" argument must be of type string or an instance of Buffer, TypedArray, or DataView."))
}

func output(rt *goja.Runtime, b []byte, enc goja.Value) goja.Value {
	if goja.IsUndefined(enc) || goja.IsNull(enc) || enc.String() == "buffer" {
		return buffer.WrapBytes(rt, b)
	}
	switch extraEncoding(enc) {
	case "latin1", "ascii":
		u := make([]uint16, len(b))
		for i, c := range b {
			if extraEncoding(enc) == "ascii" {
				c &= 0x7f
			}
			u[i] = uint16(c)
		}
		return goja.StringFromUTF16(u)
	case "utf16le":
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
		}
		return goja.StringFromUTF16(u)
	}
	return buffer.EncodeBytes(rt, b, enc)
}

// hashObject is a Hash or Hmac: update(data[, enc]) and digest([enc]).
func hashObject(rt *goja.Runtime, h hash.Hash, copyable bool) *goja.Object {
	o := rt.NewObject()
	done := false
	_ = o.Set("update", func(call goja.FunctionCall) goja.Value {
		if done {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_HASH_FINALIZED", "Digest already called"))
		}
		h.Write(data(rt, call.Argument(0), call.Argument(1)))
		return o
	})
	_ = o.Set("digest", func(call goja.FunctionCall) goja.Value {
		if done {
			panic(nodeError(rt, "Error", "ERR_CRYPTO_HASH_FINALIZED", "Digest already called"))
		}
		done = true
		return output(rt, h.Sum(nil), call.Argument(0))
	})
	if copyable {
		_ = o.Set("copy", func(goja.FunctionCall) goja.Value {
			type cloner interface{ Clone() (hash.Hash, error) }
			if c, ok := h.(cloner); ok {
				h2, err := c.Clone()
				if err == nil {
					return hashObject(rt, h2, true)
				}
			}
			panic(nodeError(rt, "Error", "ERR_CRYPTO_HASH_FINALIZED", "Digest already called"))
		})
	}
	return o
}

func newHash(rt *goja.Runtime, alg goja.Value) func() hash.Hash {
	f := hashes[strings.ToLower(alg.String())]
	if f == nil {
		panic(plainError(rt, "Digest method not supported"))
	}
	return f
}

// cryptoModule is node:crypto: hashes, HMAC, random values, UUIDs,
// timingSafeEqual, and the Web Crypto API as webcrypto / subtle.
func cryptoModule(rt *goja.Runtime) *goja.Object {
	m := rt.NewObject()
	_ = m.Set("createHash", func(call goja.FunctionCall) goja.Value {
		return hashObject(rt, newHash(rt, call.Argument(0))(), true)
	})
	_ = m.Set("hash", func(call goja.FunctionCall) goja.Value {
		h := newHash(rt, call.Argument(0))()
		h.Write(data(rt, call.Argument(1), goja.Undefined()))
		enc := call.Argument(2)
		if goja.IsUndefined(enc) {
			enc = rt.ToValue("hex")
		}
		return output(rt, h.Sum(nil), enc)
	})
	_ = m.Set("createHmac", func(call goja.FunctionCall) goja.Value {
		f := newHash(rt, call.Argument(0))
		return hashObject(rt, hmac.New(f, data(rt, call.Argument(1), goja.Undefined())), false)
	})
	_ = m.Set("getHashes", func() []string { return hashNames() })
	_ = m.Set("randomBytes", func(call goja.FunctionCall) goja.Value {
		n := call.Argument(0).ToInteger()
		if n < 0 || n > 1<<31-1 {
			panic(nodeError(rt, "RangeError", "ERR_OUT_OF_RANGE", "The value of \"size\" is out of range."))
		}
		b := make([]byte, n)
		_, _ = rand.Read(b)
		buf := buffer.WrapBytes(rt, b)
		if cb, ok := goja.AssertFunction(call.Argument(1)); ok {
			qm, _ := goja.AssertFunction(rt.Get("queueMicrotask"))
			_, _ = qm(goja.Undefined(), rt.ToValue(func(goja.FunctionCall) goja.Value {
				if _, err := cb(goja.Undefined(), goja.Null(), buf); err != nil {
					panic(err)
				}
				return goja.Undefined()
			}))
			return goja.Undefined()
		}
		return buf
	})
	_ = m.Set("randomInt", func(call goja.FunctionCall) goja.Value {
		min, max := int64(0), call.Argument(0).ToInteger()
		if len(call.Arguments) >= 2 {
			if _, isFn := goja.AssertFunction(call.Argument(1)); !isFn {
				min, max = call.Argument(0).ToInteger(), call.Argument(1).ToInteger()
			}
		}
		if max <= min {
			panic(nodeError(rt, "RangeError", "ERR_OUT_OF_RANGE", "The value of \"max\" is out of range. It must be greater than the value of \"min\"."))
		}
		n, _ := rand.Int(rand.Reader, big.NewInt(max-min))
		return rt.ToValue(min + n.Int64())
	})
	_ = m.Set("timingSafeEqual", func(call goja.FunctionCall) goja.Value {
		a, b := data(rt, call.Argument(0), goja.Undefined()), data(rt, call.Argument(1), goja.Undefined())
		if len(a) != len(b) {
			panic(rt.NewTypeError("Input buffers must have the same byte length.")) // workerd's error (Node's is a RangeError with a code)
		}
		return rt.ToValue(subtle.ConstantTimeCompare(a, b) == 1)
	})
	webcrypto := rt.Get("crypto")
	if wc, ok := webcrypto.(*goja.Object); ok {
		_ = m.Set("webcrypto", wc)
		_ = m.Set("subtle", wc.Get("subtle"))
		for _, name := range []string{"randomUUID", "getRandomValues"} {
			if f, ok := goja.AssertFunction(wc.Get(name)); ok {
				_ = m.Set(name, func(call goja.FunctionCall) goja.Value {
					v, err := f(wc, call.Arguments...)
					if err != nil {
						panic(err)
					}
					return v
				})
			}
		}
	}
	constants := rt.NewObject()
	for name, v := range map[string]int{"RSA_PKCS1_PADDING": 1, "RSA_NO_PADDING": 3, "RSA_PKCS1_OAEP_PADDING": 4, "RSA_PKCS1_PSS_PADDING": 6,
		"RSA_PSS_SALTLEN_DIGEST": -1, "RSA_PSS_SALTLEN_MAX_SIGN": -2, "RSA_PSS_SALTLEN_AUTO": -2} {
		_ = constants.Set(name, v)
	}
	_ = m.Set("constants", constants)
	fn, err := rt.RunProgram(cryptoProgram)
	if err != nil {
		panic(err)
	}
	add, _ := goja.AssertFunction(fn)
	if _, err := add(goja.Undefined(), cryptoKeysNatives(rt), m); err != nil {
		panic(err)
	}
	return m
}

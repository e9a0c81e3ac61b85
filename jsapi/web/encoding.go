package web

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/internal/whatwgurl"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

var errDecode = jserr.TypeError("Failed to decode input.")

// latin1 is the JS string whose code units are the bytes of b.
func latin1(b []byte) goja.Value {
	units := make([]uint16, len(b))
	for i, x := range b {
		units[i] = uint16(x)
	}
	return goja.StringFromUTF16(units)
}

// encodingNatives are TextEncoder, TextDecoder, atob and btoa's natives.
func encodingNatives(rt *goja.Runtime, n natives) {
	// utf8Encode(str) → ArrayBuffer
	n.set("utf8Encode", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(rt.NewArrayBuffer([]byte(c.Argument(0).String())))
	})
	// encodeInto(str, u8) → [read, written]
	n.setE("encodeInto", func(c goja.FunctionCall) (goja.Value, error) {
		s := c.Argument(0).String()
		dst, err := bytesOf(c.Argument(1))
		if err != nil {
			return nil, err
		}
		read, written := 0, 0
		for _, r := range s {
			n := utf8.RuneLen(r)
			if n < 0 {
				n = 3
				r = utf8.RuneError
			}
			if written+n > len(dst) {
				break
			}
			utf8.EncodeRune(dst[written:], r)
			written += n
			if r > 0xffff {
				read += 2
			} else {
				read++
			}
		}
		return rt.NewArray(read, written), nil
	})
	// decode(u8, encoding, fatal, ignoreBOM) → string
	// (bodies also pass a string, which stands for its UTF-8 encoding, or a Go body)
	n.setE("decode", func(c goja.FunctionCall) (goja.Value, error) {
		enc := c.Argument(1).String()
		fatal := c.Argument(2).ToBoolean()
		ignoreBOM := c.Argument(3).ToBoolean()
		if s, ok := c.Argument(0).(goja.String); ok && enc == "utf-8" {
			return decodeString(rt, s, ignoreBOM), nil
		}
		b, err := bodySource(c.Argument(0))
		if err != nil {
			return nil, err
		}
		// text()/json() of a body and TextDecoder make a string about as
		// long as the bytes: approved by the object's memory limit first
		// (goja fork's allocation hook; V8's text for a string it cannot
		// make).
		if err := jserr.Allocate(rt, int64(len(b)), goja.AllocString); err != nil {
			return nil, err
		}
		switch enc {
		case "utf-8":
			if !ignoreBOM && len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
				b = b[3:]
			}
			s, ok := whatwgurl.UTF8Decode(b, fatal)
			if !ok {
				return nil, errDecode
			}
			return rt.ToValue(s), nil
		case "utf-16le", "utf-16be":
			units := make([]uint16, 0, len(b)/2+1)
			for i := 0; i+1 < len(b); i += 2 {
				if enc == "utf-16le" {
					units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
				} else {
					units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
				}
			}
			if len(b)%2 == 1 {
				if fatal {
					return nil, errDecode
				}
				units = append(units, 0xfffd)
			}
			if !ignoreBOM && len(units) > 0 && units[0] == 0xfeff {
				units = units[1:]
			}
			return goja.StringFromUTF16(units), nil
		default: // windows-1252: workerd decodes it as Latin-1
			return latin1(b), nil
		}
	})
	n.setE("btoa", func(c goja.FunctionCall) (goja.Value, error) {
		if len(c.Arguments) == 0 {
			return nil, jserr.TypeError("Failed to execute 'btoa' on 'WorkerGlobalScope': 1 argument required, but only 0 present.")
		}
		units := utf16Units(c.Argument(0).ToString())
		b := make([]byte, len(units))
		for i, u := range units {
			if u > 0xff {
				return nil, jserr.New("InvalidCharacterError", "btoa() can only operate on characters in the Latin1 (ISO/IEC 8859-1) range.")
			}
			b[i] = byte(u)
		}
		return rt.ToValue(base64.StdEncoding.EncodeToString(b)), nil
	})
	n.setE("atob", func(c goja.FunctionCall) (goja.Value, error) {
		if len(c.Arguments) == 0 {
			return nil, jserr.TypeError("Failed to execute 'atob' on 'WorkerGlobalScope': 1 argument required, but only 0 present.")
		}
		b, ok := forgivingBase64(c.Argument(0).String())
		if !ok {
			return nil, jserr.New("InvalidCharacterError", "atob() called with invalid base64-encoded data. (Only whitespace, '+', '/', alphanumeric ASCII, and up to two terminal '=' signs when the input data length is divisible by 4 are allowed.)")
		}
		return latin1(b), nil
	})
}

// forgivingBase64 implements https://infra.spec.whatwg.org/#forgiving-base64-decode.
func forgivingBase64(s string) ([]byte, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\f', '\r':
		default:
			b = append(b, c)
		}
	}
	if len(b)%4 == 0 && len(b) > 0 {
		if b[len(b)-1] == '=' {
			b = b[:len(b)-1]
			if b[len(b)-1] == '=' {
				b = b[:len(b)-1]
			}
		}
	}
	if len(b)%4 == 1 {
		return nil, false
	}
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return nil, false
		}
	}
	out, err := base64.RawStdEncoding.DecodeString(string(b))
	if err != nil {
		// Non-zero padding bits are allowed by the forgiving decoder.
		out, err = base64.RawStdEncoding.WithPadding(base64.NoPadding).Strict().DecodeString(string(b))
		if err != nil {
			return base64Lenient(b), true
		}
	}
	return out, true
}

func base64Lenient(b []byte) []byte {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var acc uint32
	bits := 0
	out := make([]byte, 0, len(b)*3/4)
	for _, c := range b {
		acc = acc<<6 | uint32(strings.IndexByte(alpha, c))
		bits += 6
		if bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>uint(bits)))
		}
	}
	return out
}

// decodeString is decode(the UTF-8 encoding of s): s with lone
// surrogates replaced by U+FFFD and, unless ignoreBOM, a leading BOM
// dropped.
func decodeString(rt *goja.Runtime, s goja.String, ignoreBOM bool) goja.Value {
	gs := s.String()
	ascii := true
	for i := 0; i < len(gs); i++ {
		if gs[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	if !ignoreBOM {
		gs = strings.TrimPrefix(gs, "\ufeff")
	}
	return rt.ToValue(gs)
}

package web

import (
	"errors"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/transform"
)

// The Encoding Standard's labels and legacy encodings (TextDecoder), from
// golang.org/x/text/encoding/htmlindex, which implements that standard's
// index: workerd decodes them all (ICU). UTF-8, UTF-16 and windows-1252 keep
// their own decoders in encoding.go.

// encodingName is the Encoding Standard's name for label ("" when it is no
// label): ASCII whitespace around it is ignored, case too.
func encodingName(label string) string {
	label = strings.ToLower(strings.Trim(label, "\t\n\f\r "))
	if label == "" || strings.TrimSpace(label) != label {
		return "" // htmlindex would also trim Unicode spaces (U+00A0, U+2028)
	}
	e, err := htmlindex.Get(label)
	if err != nil {
		return ""
	}
	name, err := htmlindex.Name(e)
	if err != nil {
		return ""
	}
	return name
}

// decodeLegacy decodes b in the legacy encoding named enc. Unless final, an
// incomplete sequence at the end is left: consumed says how many bytes were
// decoded. fatal: an undecodable sequence is an error.
func decodeLegacy(enc string, b []byte, fatal, final bool) (string, int, error) {
	e, err := htmlindex.Get(enc)
	if err != nil {
		return "", 0, err
	}
	var d *encoding.Decoder = e.NewDecoder()
	dst := make([]byte, 2*len(b)+16)
	for {
		nDst, nSrc, err := d.Transform(dst, b, final)
		switch {
		case errors.Is(err, transform.ErrShortDst):
			dst = make([]byte, 2*len(dst))
			d.Reset()
			continue
		case err != nil && !errors.Is(err, transform.ErrShortSrc):
			return "", 0, err
		}
		out := string(dst[:nDst])
		if fatal && strings.ContainsRune(out, '\uFFFD') {
			return "", 0, errDecode
		}
		return out, nSrc, nil
	}
}

func legacyEncodingNatives(rt *goja.Runtime, n natives) {
	// encodingName(label) → the encoding's name, or undefined
	n.set("encodingName", func(c goja.FunctionCall) goja.Value {
		if name := encodingName(c.Argument(0).String()); name != "" {
			return rt.ToValue(name)
		}
		return goja.Undefined()
	})
	// decodeLegacy(u8, encoding, fatal, final) → [string, consumed]
	n.setE("decodeLegacy", func(c goja.FunctionCall) (goja.Value, error) {
		b, err := bytesOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		s, used, err := decodeLegacy(c.Argument(1).String(), b, c.Argument(2).ToBoolean(), c.Argument(3).ToBoolean())
		if err != nil {
			return nil, err
		}
		return rt.NewArray(s, used), nil
	})
}

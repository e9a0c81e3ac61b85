package web

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"
	"testing"
)

// FuzzDecompressor: any bytes, cut anywhere, end a DecompressionStream with
// its output or an error (never a hang or a panic), and a valid stream
// comes back whole whatever the cut.
func FuzzDecompressor(f *testing.F) {
	for _, format := range []string{"gzip", "deflate", "deflate-raw"} {
		f.Add(format, compressed(f, format, []byte("hello, hello, hello")), uint8(3))
	}
	f.Add("gzip", []byte("not gzip"), uint8(1))
	f.Fuzz(func(t *testing.T, format string, in []byte, cut uint8) {
		switch format {
		case "gzip", "deflate", "deflate-raw":
		default:
			return
		}
		d := newDecompressor(format)
		var out []byte
		var err error
		step := int(cut)%17 + 1
		for i := 0; i < len(in) && err == nil; i += step {
			var b []byte
			b, err = d.write(in[i:min(i+step, len(in))], false)
			out = append(out, b...)
		}
		if err == nil {
			var b []byte
			b, err = d.write(nil, true)
			out = append(out, b...)
		}
		want, werr := decompressAll(format, in)
		if werr == nil && (err != nil || !bytes.Equal(out, want)) {
			t.Fatalf("valid %s stream: got %q, %v; want %q", format, out, err, want)
		}
	})
}

func compressed(tb testing.TB, format string, b []byte) []byte {
	var buf bytes.Buffer
	var w io.WriteCloser
	switch format {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	default:
		w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
	}
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// decompressAll is Go's reading of a whole single stream with nothing after it.
func decompressAll(format string, in []byte) ([]byte, error) {
	br := bytes.NewReader(in)
	var r io.Reader
	switch format {
	case "gzip":
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		gz.Multistream(false)
		r = gz
	case "deflate":
		zr, err := zlib.NewReader(br)
		if err != nil {
			return nil, err
		}
		r = zr
	default:
		r = flate.NewReader(br)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if br.Len() > 0 {
		return nil, errTrailing
	}
	return out, nil
}

package web

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"io"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// CompressionStream and DecompressionStream (js/streams.js) run on Go's
// compress packages: "gzip" (RFC 1952), "deflate" (zlib, RFC 1950) and
// "deflate-raw" (RFC 1951).

// compressor is a CompressionStream's state.
type compressor struct {
	opaque
	out bytes.Buffer
	w   io.WriteCloser
}

// decompressor is a DecompressionStream's state. Go's readers pull their
// input, so one runs on a goroutine of its own (G) and asks for input
// through idle; write hands it a chunk and waits until it asks again (or
// ends), by which time it has written out all it could.
type decompressor struct {
	opaque
	feed    chan []byte // input chunks to G; closed at the end of the input
	idle    chan error  // from G: nil = wants input; else its end (io.EOF or an error)
	out     bytes.Buffer
	cur     []byte // G's current chunk
	eof     bool   // G saw the end of the input
	waiting bool   // G sent nil and waits on feed
	err     error  // G's end, once known
}

// Read is G's source.
func (d *decompressor) Read(p []byte) (int, error) {
	for len(d.cur) == 0 {
		if d.eof {
			return 0, io.EOF
		}
		d.idle <- nil
		b, ok := <-d.feed
		if !ok {
			d.eof = true
			return 0, io.EOF
		}
		d.cur = b
	}
	n := copy(p, d.cur)
	d.cur = d.cur[n:]
	return n, nil
}

func newDecompressor(format string) *decompressor {
	d := &decompressor{feed: make(chan []byte), idle: make(chan error)}
	go func() {
		var r io.Reader
		var err error
		switch format {
		case "gzip":
			var gz *gzip.Reader
			if gz, err = gzip.NewReader(d); err == nil {
				gz.Multistream(false)
				r = gz
			}
		case "deflate":
			r, err = zlib.NewReader(d)
		default:
			r = flate.NewReader(d)
		}
		if err == nil {
			buf := make([]byte, 32<<10)
			for err == nil {
				var n int
				n, err = r.Read(buf)
				d.out.Write(buf[:n])
			}
		}
		d.idle <- err
	}()
	return d
}

// await waits until G wants input or ends.
func (d *decompressor) await() {
	if err := <-d.idle; err != nil {
		d.err = err
	} else {
		d.waiting = true
	}
}

// write feeds b, or ends the input, and returns what came out.
func (d *decompressor) write(b []byte, end bool) ([]byte, error) {
	if d.err == nil && !d.waiting {
		d.await()
	}
	trailing := false
	switch {
	case d.err != nil:
		trailing = len(b) > 0
	case end:
		close(d.feed)
		d.waiting = false
		for d.err == nil {
			d.await()
		}
	case len(b) > 0:
		d.waiting = false
		d.feed <- b
		d.await()
	}
	out := append([]byte(nil), d.out.Bytes()...)
	d.out.Reset()
	switch {
	case d.err == nil:
		return out, nil
	case d.err != io.EOF:
		return out, errDecompress
	case trailing:
		return out, errTrailing
	}
	return out, nil
}

var (
	errDecompress = jserr.TypeError("Decompression failed.")
	errTrailing   = jserr.TypeError("Trailing bytes after end of stream.")
)

func compressNatives(rt *goja.Runtime, n natives) {
	// zNew(format, decompress) → handle; the format is checked by the caller
	n.setE("zNew", func(c goja.FunctionCall) (goja.Value, error) {
		format := c.Argument(0).String()
		if c.Argument(1).ToBoolean() {
			return rt.NewDynamicObject(newDecompressor(format)), nil
		}
		z := &compressor{}
		switch format {
		case "gzip":
			z.w = gzip.NewWriter(&z.out)
		case "deflate":
			z.w = zlib.NewWriter(&z.out)
		default:
			z.w, _ = flate.NewWriter(&z.out, flate.DefaultCompression)
		}
		return rt.NewDynamicObject(z), nil
	})
	// zWrite(h, u8|null) → the Uint8Array that came out; null ends the input
	n.setE("zWrite", func(c goja.FunctionCall) (goja.Value, error) {
		o, _ := c.Argument(0).(*goja.Object)
		if o == nil {
			return nil, errIllegalInvocation
		}
		end := goja.IsNull(c.Argument(1))
		var in []byte
		if !end {
			b, err := bytesOf(c.Argument(1))
			if err != nil {
				return nil, err
			}
			in = append([]byte(nil), b...)
		}
		var out []byte
		switch z := o.Export().(type) {
		case *compressor:
			if end {
				_ = z.w.Close()
			} else {
				_, _ = z.w.Write(in)
			}
			out = append([]byte(nil), z.out.Bytes()...)
			z.out.Reset()
		case *decompressor:
			var err error
			if out, err = z.write(in, end); err != nil {
				return nil, err
			}
		default:
			return nil, errIllegalInvocation
		}
		return rt.ToValue(rt.NewArrayBuffer(out)), nil
	})
}

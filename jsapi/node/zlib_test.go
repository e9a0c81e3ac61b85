package node

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// TestZlibKnownBytes decodes what Node.js's zlib (the C library) wrote for
// "hello world", and checks the error texts zlib gives for bad input (as
// workerd's node:zlib reports them).
func TestZlibKnownBytes(t *testing.T) {
	for mode, b64 := range map[zlibMode]string{
		modeInflate:          "eJzLSM3JyVcozy/KSQEAGgsEXQ==",
		modeGunzip:           "H4sIAAAAAAAAA8tIzcnJVyjPL8pJAQCFEUoNCwAAAA==",
		modeInflateRaw:       "y0jNyclXKM8vykkBAA==",
		modeBrotliDecompress: "CwWAaGVsbG8gd29ybGQD",
		modeUnzip:            "H4sIAAAAAAAAA8tIzcnJVyjPL8pJAQCFEUoNCwAAAA==",
	} {
		in, _ := base64.StdEncoding.DecodeString(b64)
		got, err := runZlib(mode, in)
		if err != nil || string(got) != "hello world" {
			t.Errorf("%s: got %q, %v", mode, got, err)
		}
	}
	deflated, _ := runZlib(modeDeflate, []byte("checksum"))
	corrupt := bytes.Clone(deflated)
	corrupt[len(corrupt)-1] ^= 0xff
	for _, c := range []struct {
		mode zlibMode
		in   []byte
		want string
	}{
		{modeInflate, []byte("not zlib data"), "incorrect header check"},
		{modeGunzip, []byte("not gzip data"), "incorrect header check"},
		{modeGunzip, []byte("xx"), "incorrect header check"},
		{modeInflate, deflated[:len(deflated)-3], "unexpected end of file"},
		{modeInflate, corrupt, "incorrect data check"},
	} {
		_, err := runZlib(c.mode, c.in)
		if err == nil || zlibError(err).Error() != c.want {
			t.Errorf("%s(%q): got %v, want %q", c.mode, c.in, err, c.want)
		}
	}
}

// TestZlibHeaders: the header bytes zlib writes per level, and gzip's OS
// byte (Unix), as Node.js and workerd write them.
func TestZlibHeaders(t *testing.T) {
	in := bytes.Repeat([]byte("The quick brown fox. "), 20)
	for level, want := range map[int]string{-1: "789c", 1: "7801", 9: "78da"} {
		s, _ := newZlibStream(modeDeflate, zlibOptions{Level: level})
		a, _ := s.write(in)
		b, _ := s.end()
		out := append(a, b...)
		if got := base16(out[:2]); got != want {
			t.Errorf("level %d: header %s, want %s", level, got, want)
		}
	}
	gz, _ := runZlib(modeGzip, in)
	if got := base16(gz[:4]) + base16(gz[9:10]); got != "1f8b080003" {
		t.Errorf("gzip header %s", got)
	}
}

func base16(b []byte) string {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, hex[c>>4], hex[c&15])
	}
	return string(out)
}

func runZlib(mode zlibMode, in []byte) ([]byte, error) {
	s, err := newZlibStream(mode, zlibOptions{Level: -1, Quality: 11})
	if err != nil {
		return nil, err
	}
	a, err := s.write(in)
	if err != nil {
		return nil, err
	}
	b, err := s.end()
	return append(a, b...), err
}

// FuzzZlibDecode: arbitrary input to every decompressor gives output or an
// error, never a panic, and maxOutputLength bounds what is produced.
func FuzzZlibDecode(f *testing.F) {
	for _, b64 := range []string{"eJzLSM3JyVcozy/KSQEAGgsEXQ==", "H4sIAAAAAAAAA8tIzcnJVyjPL8pJAQCFEUoNCwAAAA==", "y0jNyclXKM8vykkBAA==", "CwWAaGVsbG8gd29ybGQD"} {
		b, _ := base64.StdEncoding.DecodeString(b64)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, m := range []zlibMode{modeInflate, modeGunzip, modeInflateRaw, modeUnzip, modeBrotliDecompress} {
			s, _ := newZlibStream(m, zlibOptions{Level: -1, MaxOutputLength: 1 << 16})
			_, _ = s.write(in)
			out, err := s.end()
			if err == nil && len(out) > 1<<16 {
				t.Fatalf("%s: %d bytes past maxOutputLength", m, len(out))
			}
		}
	})
}

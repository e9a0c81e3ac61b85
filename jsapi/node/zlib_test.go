package node

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
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
	for _, b64 := range []string{"eJzLSM3JyVcozy/KSQEAGgsEXQ==", "H4sIAAAAAAAAA8tIzcnJVyjPL8pJAQCFEUoNCwAAAA==", "y0jNyclXKM8vykkBAA==", "CwWAaGVsbG8gd29ybGQD", "KLUv/SALWQAAaGVsbG8gd29ybGQ="} {
		b, _ := base64.StdEncoding.DecodeString(b64)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, m := range []zlibMode{modeInflate, modeGunzip, modeInflateRaw, modeUnzip, modeBrotliDecompress, modeZstdDecompress} {
			s, _ := newZlibStream(m, zlibOptions{Level: -1, MaxOutputLength: 1 << 16})
			_, _ = s.write(in)
			out, err := s.end()
			if err == nil && len(out) > 1<<16 {
				t.Fatalf("%s: %d bytes past maxOutputLength", m, len(out))
			}
		}
	})
}

// TestZstd: node:zlib's zstd engines (klauspost/compress/zstd) read a frame
// written by hand to the format (RFC 8878: one raw block), round-trip at
// the levels ZSTD_c_compressionLevel takes, and fail bad, cut and
// oversized input with workerd's messages.
func TestZstd(t *testing.T) {
	frame, _ := hex.DecodeString("28b52ffd200b590000" + hex.EncodeToString([]byte("hello world")))
	if got, err := runZlib(modeZstdDecompress, frame); err != nil || string(got) != "hello world" {
		t.Fatalf("known frame: got %q, %v", got, err)
	}
	in := bytes.Repeat([]byte("Hello, Zstd compression! "), 400)
	for _, level := range []int{0, 1, 3, 19, 22} {
		s, err := newZlibStream(modeZstdCompress, zlibOptions{ZstdLevel: level})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := s.write(in)
		b, err := s.end()
		if err != nil {
			t.Fatal(err)
		}
		z := append(a, b...)
		if !bytes.HasPrefix(z, []byte{0x28, 0xb5, 0x2f, 0xfd}) || len(z) >= len(in)/10 {
			t.Errorf("level %d: %d bytes, not a small zstd frame", level, len(z))
		}
		got, err := runZlib(modeZstdDecompress, z)
		if err != nil || !bytes.Equal(got, in) {
			t.Errorf("level %d: round trip: %v", level, err)
		}
	}
	z, _ := runZlib(modeZstdCompress, in)
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{[]byte("This is not valid zstd compressed data"), "Zstd decompression failed: Unknown frame descriptor"},
		{z[:len(z)/2], "Unexpected end of file"},
	} {
		_, err := runZlib(modeZstdDecompress, c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %q", c.in[:8], err, c.want)
		}
	}
	s, _ := newZlibStream(modeZstdDecompress, zlibOptions{MaxOutputLength: 10})
	_, _ = s.write(z)
	if _, err := s.end(); !errors.Is(err, errOutputTooLarge) {
		t.Errorf("maxOutputLength 10: got %v", err)
	}
}

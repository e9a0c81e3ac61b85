package filestore

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// FuzzDecodeV1 feeds arbitrary file contents to the v1 object decoder of
// the migration: it must not panic, must reject with ErrCorrupt, and what
// it accepts must re-encode to the same file.
func FuzzDecodeV1(f *testing.F) {
	body := []byte("body")
	good := append([]byte(v1Magic+strings.Trim(mustETag(f, body), `"`)+"\n"), body...)
	f.Add(good)
	f.Add(good[:v1HeaderLen])
	f.Add(good[:v1HeaderLen-1])
	f.Add([]byte(v1Magic))
	f.Add([]byte("not an object"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		body, etag, err := decodeV1(data)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("decodeV1 error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again := append([]byte(v1Magic+strings.Trim(etag, `"`)+"\n"), body...)
		if !bytes.Equal(again, data) {
			t.Fatalf("decodeV1(%q) = %q, %s: does not re-encode to the input", data, body, etag)
		}
		if err := checkBody(etag, body); err != nil {
			t.Fatalf("decodeV1 accepted %q, but checkBody(%s) = %v", data, etag, err)
		}
	})
}

// FuzzCheckBody feeds arbitrary ETags (read back from the database) and
// bodies to the checksum verification of Get.
func FuzzCheckBody(f *testing.F) {
	f.Add(mustETag(f, []byte("v")), []byte("v"))
	f.Add(mustETag(f, []byte("v")), []byte("w"))
	f.Add(`"`+strings.Repeat("g", etagLen)+`"`, []byte{})
	f.Add(`W/"x"`, []byte{})
	f.Fuzz(func(t *testing.T, etag string, body []byte) {
		err := checkBody(etag, body)
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("checkBody error %v does not wrap ErrCorrupt", err)
		}
		if err != nil {
			return
		}
		sum := sha256.Sum256(body)
		if len(etag) != etagLen+2 || !strings.EqualFold(etag[1:33], hex.EncodeToString(sum[:16])) {
			t.Fatalf("checkBody accepted etag %q for a body of checksum %x", etag, sum[:16])
		}
	})
}

func mustETag(tb testing.TB, body []byte) string {
	etag, err := newETag(body)
	if err != nil {
		tb.Fatal(err)
	}
	return etag
}

// Package r2 is the R2 bucket binding (wrangler's r2_buckets): env.<BINDING>
// is an R2Bucket (get, put, head, delete, list) whose objects live in the
// host's ObjectStore under "r2/<bucket>/<key>" (bucket protocol, section 2).
//
// Stored format. Each R2 object is ONE store object, so its metadata and body
// are written and replaced atomically by one PUT:
//
//	"CHR2" 0x01 | uint32 big-endian n | n bytes of JSON metadata | body
//
// The JSON metadata is
//
//	{"version":"<32 hex>","uploaded_ms":<ms>,"etag":"<md5 hex>","size":<body bytes>,
//	 "http":{"contentType":...,"contentLanguage":...,"contentDisposition":...,
//	         "contentEncoding":...,"cacheControl":...,"cacheExpiry_ms":<ms>},
//	 "custom":{"<k>":"<v>",...},
//	 "checksums":{"sha1":"<hex>",...},   the SHA checksums a put was given
//	 "multipart":true,"parts":<n>,       an object a multipart upload made
//	 "state":"..."}                      an upload record (multipart.go)
//
// with empty fields omitted. Decode rejects anything else: size must equal
// the body's length; the etag is the body's MD5, or for a multipart object
// "<32 hex>-<parts>" (the MD5 of its parts' MD5s); each checksum must be the
// body's.
package r2

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

var magic = []byte("CHR2\x01")

// maxMetaLen bounds the metadata JSON (R2 allows 2 KiB of custom metadata;
// the http fields and names add little).
const maxMetaLen = 64 << 10

// HTTPMetadata are an object's HTTP headers (R2HTTPMetadata).
type HTTPMetadata struct {
	ContentType        string `json:"contentType,omitempty"`
	ContentLanguage    string `json:"contentLanguage,omitempty"`
	ContentDisposition string `json:"contentDisposition,omitempty"`
	ContentEncoding    string `json:"contentEncoding,omitempty"`
	CacheControl       string `json:"cacheControl,omitempty"`
	CacheExpiryMs      int64  `json:"cacheExpiry_ms,omitempty"`
}

// Meta is what is stored beside an object's body.
type Meta struct {
	Version    string            `json:"version"`
	UploadedMs int64             `json:"uploaded_ms"`
	ETag       string            `json:"etag"`
	Size       int64             `json:"size"`
	HTTP       HTTPMetadata      `json:"http"`
	Custom     map[string]string `json:"custom,omitempty"`
	// Checksums holds the SHA checksums given to put, by algorithm name
	// (sha1, sha256, sha384, sha512), as lowercase hex.
	Checksums map[string]string `json:"checksums,omitempty"`
	// Multipart marks an object completed from Parts parts; its ETag is
	// not the body's MD5 and it has no MD5 checksum.
	Multipart bool `json:"multipart,omitempty"`
	Parts     int  `json:"parts,omitempty"`
	// State is set on upload records only (multipart.go).
	State string `json:"state,omitempty"`
}

// shaAlgorithms are the SHA checksums R2 keeps, by option name.
var shaAlgorithms = map[string]func([]byte) []byte{
	"sha1":   func(b []byte) []byte { s := sha1.Sum(b); return s[:] },
	"sha256": func(b []byte) []byte { s := sha256.Sum256(b); return s[:] },
	"sha384": func(b []byte) []byte { s := sha512.Sum384(b); return s[:] },
	"sha512": func(b []byte) []byte { s := sha512.Sum512(b); return s[:] },
}

// multipartETag reports whether etag is "<32 lowercase hex>-<parts>".
func multipartETag(etag string, parts int) bool {
	h, n, ok := strings.Cut(etag, "-")
	if !ok || len(h) != 32 || n != strconv.Itoa(parts) {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}

// checkSums reports whether every checksum of m is body's.
func checkSums(m Meta, body []byte) bool {
	for alg, want := range m.Checksums {
		f, ok := shaAlgorithms[alg]
		if !ok || hex.EncodeToString(f(body)) != want {
			return false
		}
	}
	return true
}

// ErrFormat means stored bytes are not an R2 object of this format.
var ErrFormat = errors.New("r2: not a stored R2 object")

// Encode returns the stored bytes of an object. m.Size is set from body,
// and m.ETag too unless m is Multipart (then it must be "<32 hex>-<parts>").
// Each of m.Checksums must be body's.
func Encode(m Meta, body []byte) ([]byte, error) {
	m.Size = int64(len(body))
	if m.Multipart {
		if m.Parts < 0 || !multipartETag(m.ETag, m.Parts) {
			return nil, fmt.Errorf("r2: multipart etag %q for %d parts", m.ETag, m.Parts)
		}
	} else {
		sum := md5.Sum(body)
		m.ETag, m.Parts = hex.EncodeToString(sum[:]), 0
	}
	if len(m.Checksums) == 0 {
		m.Checksums = nil
	} else if !checkSums(m, body) {
		return nil, fmt.Errorf("r2: a checksum does not match the body")
	}
	j, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if len(j) > maxMetaLen {
		return nil, fmt.Errorf("r2: metadata of %d bytes, more than %d", len(j), maxMetaLen)
	}
	out := make([]byte, 0, len(magic)+4+len(j)+len(body))
	out = append(out, magic...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(j)))
	out = append(out, j...)
	return append(out, body...), nil
}

// Decode splits stored bytes into metadata and body (a sub-slice of b).
func Decode(b []byte) (Meta, []byte, error) {
	var m Meta
	if !bytes.HasPrefix(b, magic) || len(b) < len(magic)+4 {
		return m, nil, fmt.Errorf("%w: bad header", ErrFormat)
	}
	n := binary.BigEndian.Uint32(b[len(magic):])
	rest := b[len(magic)+4:]
	if n > maxMetaLen || uint64(n) > uint64(len(rest)) {
		return m, nil, fmt.Errorf("%w: metadata length %d", ErrFormat, n)
	}
	dec := json.NewDecoder(bytes.NewReader(rest[:n]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || dec.More() {
		return Meta{}, nil, fmt.Errorf("%w: metadata: %v", ErrFormat, err)
	}
	body := rest[n:]
	sum := md5.Sum(body)
	etagOK := m.ETag == hex.EncodeToString(sum[:]) && m.Parts == 0
	if m.Multipart {
		etagOK = m.Parts >= 0 && multipartETag(m.ETag, m.Parts)
	}
	if m.Size != int64(len(body)) || !etagOK || m.Version == "" || !checkSums(m, body) ||
		(m.Checksums != nil && len(m.Checksums) == 0) || (m.Custom != nil && len(m.Custom) == 0) {
		return Meta{}, nil, fmt.Errorf("%w: size, etag, checksums or version do not match the body", ErrFormat)
	}
	return m, body, nil
}

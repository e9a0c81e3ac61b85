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
//	 "custom":{"<k>":"<v>",...}}
//
// with empty fields omitted. Decode rejects anything else (size must equal
// the body's length, the etag the body's MD5).
package r2

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
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
}

// ErrFormat means stored bytes are not an R2 object of this format.
var ErrFormat = errors.New("r2: not a stored R2 object")

// Encode returns the stored bytes of an object. m.Size and m.ETag are set
// from body.
func Encode(m Meta, body []byte) ([]byte, error) {
	sum := md5.Sum(body)
	m.ETag, m.Size = hex.EncodeToString(sum[:]), int64(len(body))
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
	if m.Size != int64(len(body)) || m.ETag != hex.EncodeToString(sum[:]) || m.Version == "" {
		return Meta{}, nil, fmt.Errorf("%w: size, etag or version do not match the body", ErrFormat)
	}
	return m, body, nil
}

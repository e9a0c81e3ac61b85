package r2

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// Limits of R2.
const (
	MaxKeyBytes  = 1024 - 3 - bucketkey.MaxSegmentLen - 1 // what the store key leaves after "r2/<bucket>/"
	MaxListLimit = 1000
)

// Bucket is one R2 bucket in an ObjectStore. Its methods are safe for
// concurrent use.
type Bucket struct {
	Name  string
	Store plugins.ObjectStore
	// Now is the clock of uploaded times (default time.Now).
	Now func() time.Time
	// MinPartSize is the least size of a multipart upload's parts but the
	// last (default DefaultMinPartSize).
	MinPartSize int64
}

// New returns the bucket name of store; the name must pass
// bucketkey.CheckSegment.
func New(store plugins.ObjectStore, name string) (*Bucket, error) {
	if err := bucketkey.CheckSegment(name); err != nil {
		return nil, fmt.Errorf("r2 bucket %q: %w", name, err)
	}
	return &Bucket{Name: name, Store: store}, nil
}

func (b *Bucket) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// Conditions is R2Conditional (onlyIf). Empty fields are not checked.
type Conditions struct {
	EtagMatches, EtagDoesNotMatch   string
	UploadedBeforeMs, UploadedAfter int64
}

func etagList(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		e = strings.TrimPrefix(e, "W/")
		e = strings.Trim(e, `"`)
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

func etagIn(list, etag string) bool {
	for _, e := range etagList(list) {
		if e == "*" || e == etag {
			return true
		}
	}
	return false
}

// holds reports whether c holds for m (nil: the object is absent).
func (c Conditions) holds(m *Meta) bool {
	if m == nil {
		return c.EtagMatches == ""
	}
	if c.EtagMatches != "" && !etagIn(c.EtagMatches, m.ETag) {
		return false
	}
	if c.EtagDoesNotMatch != "" && etagIn(c.EtagDoesNotMatch, m.ETag) {
		return false
	}
	// As HTTP: uploadedBefore is If-Unmodified-Since and is ignored when
	// etagMatches is given; uploadedAfter is If-Modified-Since, ignored with
	// etagDoesNotMatch. Times compare at second precision.
	if c.UploadedBeforeMs != 0 && c.EtagMatches == "" && m.UploadedMs/1000 > c.UploadedBeforeMs/1000 {
		return false
	}
	if c.UploadedAfter != 0 && c.EtagDoesNotMatch == "" && m.UploadedMs/1000 <= c.UploadedAfter/1000 {
		return false
	}
	return true
}

// Object is one stored object with its body (nil for head and list).
type Object struct {
	Key  string
	Meta Meta
	Body []byte
}

func (b *Bucket) storeKey(key string) string { return bucketkey.R2Key(b.Name, key) }

// load returns the object key, its store ETag, or nil if absent.
func (b *Bucket) load(ctx context.Context, key string) (*Object, string, error) {
	raw, setag, err := b.Store.Get(ctx, b.storeKey(key))
	if errors.Is(err, plugins.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	m, body, err := Decode(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", b.storeKey(key), err)
	}
	return &Object{Key: key, Meta: m, Body: body}, setag, nil
}

// Range is an R2Range; Suffix > 0 selects the last Suffix bytes, else
// Offset and Length (Length < 0: to the end).
type Range struct {
	Offset, Length, Suffix int64
}

// ErrRange is a range outside the object (R2 answers 416).
var ErrRange = errors.New("get: The requested range is not satisfiable (10039)")

// Get returns the object (nil if absent). When the conditions fail it
// returns the object with ok false and no body. rng may be nil; the
// returned range is the one applied (offset, length).
func (b *Bucket) Get(ctx context.Context, key string, c Conditions, rng *Range) (o *Object, ok bool, applied Range, err error) {
	o, _, err = b.load(ctx, key)
	if err != nil || o == nil {
		return nil, false, Range{}, err
	}
	if !c.holds(&o.Meta) {
		o.Body = nil
		return o, false, Range{}, nil
	}
	size := int64(len(o.Body))
	applied = Range{Offset: 0, Length: size}
	if rng != nil {
		switch {
		case rng.Suffix > 0:
			n := min(rng.Suffix, size)
			applied = Range{Offset: size - n, Length: n}
		default:
			if rng.Offset > size || (rng.Offset == size && size > 0 && rng.Length != 0) {
				return nil, false, Range{}, ErrRange
			}
			n := size - rng.Offset
			if rng.Length >= 0 && rng.Length < n {
				n = rng.Length
			}
			applied = Range{Offset: rng.Offset, Length: n}
		}
		o.Body = o.Body[applied.Offset : applied.Offset+applied.Length]
	}
	return o, true, applied, nil
}

// Head returns the object's metadata (nil if absent).
func (b *Bucket) Head(ctx context.Context, key string) (*Object, error) {
	o, _, err := b.load(ctx, key)
	if o != nil {
		o.Body = nil
	}
	return o, err
}

// PutOptions are R2PutOptions.
type PutOptions struct {
	HTTP   HTTPMetadata
	Custom map[string]string
	OnlyIf Conditions
	MD5    []byte // when set, the body's MD5 must equal it
	// SHA, when set, is the body's checksum under the algorithm SHAName
	// (sha1, sha256, sha384 or sha512); it is checked and kept.
	SHAName string
	SHA     []byte
}

// digestNames are the algorithms' names in R2's errors.
var digestNames = map[string]string{"md5": "MD5", "sha1": "SHA-1", "sha256": "SHA-256", "sha384": "SHA-384", "sha512": "SHA-512"}

// badDigest is put's error when a given checksum does not match the body,
// in R2's words (10037).
func badDigest(alg string, given, actual []byte) error {
	n := digestNames[alg]
	return fmt.Errorf("put: The %s checksum you specified did not match what we received.\nYou provided a %s checksum with value: %x\nActual %s was: %x (10037)",
		n, n, given, n, actual)
}

// Put stores the object and returns its metadata, or nil when the
// conditions fail. The condition check and the write are atomic: the write
// is conditional on the store ETag that was checked.
func (b *Bucket) Put(ctx context.Context, key string, body []byte, opts PutOptions) (*Object, error) {
	if opts.MD5 != nil {
		if sum := md5.Sum(body); string(sum[:]) != string(opts.MD5) {
			return nil, badDigest("md5", opts.MD5, sum[:])
		}
	}
	var sums map[string]string
	if opts.SHAName != "" {
		f, ok := shaAlgorithms[opts.SHAName]
		if !ok {
			return nil, fmt.Errorf("put: unknown checksum algorithm %q", opts.SHAName)
		}
		if sum := f(body); string(sum) != string(opts.SHA) {
			return nil, badDigest(opts.SHAName, opts.SHA, sum)
		}
		sums = map[string]string{opts.SHAName: hex.EncodeToString(opts.SHA)}
	}
	for {
		cur, setag, err := b.load(ctx, key)
		if err != nil {
			return nil, err
		}
		var cm *Meta
		if cur != nil {
			cm = &cur.Meta
		}
		if !opts.OnlyIf.holds(cm) {
			return nil, nil
		}
		var v [16]byte
		_, _ = rand.Read(v[:])
		m := Meta{Version: hex.EncodeToString(v[:]), UploadedMs: b.now().UnixMilli(), HTTP: opts.HTTP, Custom: opts.Custom, Checksums: sums}
		if len(m.Custom) == 0 {
			m.Custom = nil
		}
		raw, err := Encode(m, body)
		if err != nil {
			return nil, err
		}
		po := plugins.PutOptions{IfMatch: setag, IfNoneMatch: cur == nil}
		if opts.OnlyIf == (Conditions{}) {
			po = plugins.PutOptions{}
		}
		_, err = b.Store.Put(ctx, b.storeKey(key), raw, po)
		if errors.Is(err, plugins.ErrPreconditionFailed) || errors.Is(err, plugins.ErrNotFound) {
			continue // raced with another writer: check the conditions again
		}
		if err != nil {
			return nil, err
		}
		m2, _, _ := Decode(raw)
		return &Object{Key: key, Meta: m2}, nil
	}
}

// Delete removes the keys (absent keys are not an error).
func (b *Bucket) Delete(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := b.Store.Delete(ctx, b.storeKey(k), ""); err != nil {
			return err
		}
	}
	return nil
}

// ListOptions are R2ListOptions.
type ListOptions struct {
	Prefix, Delimiter, Cursor, StartAfter string
	Limit                                 int
}

// ListResult is R2Objects; Objects carry metadata without bodies.
type ListResult struct {
	Objects           []*Object
	DelimitedPrefixes []string
	Truncated         bool
	Cursor            string
}

// ErrCursor is list's error for a cursor it did not make.
var ErrCursor = errors.New("list: The provided cursor is invalid.")

// List lists the bucket in key order. The cursor is the base64url of the
// last key (or delimited prefix) returned.
func (b *Bucket) List(ctx context.Context, o ListOptions) (*ListResult, error) {
	limit := o.Limit
	if limit <= 0 || limit > MaxListLimit {
		limit = MaxListLimit
	}
	base := bucketkey.R2BucketPrefix(b.Name)
	after := o.StartAfter
	if o.Cursor != "" {
		c, err := base64.RawURLEncoding.DecodeString(o.Cursor)
		if err != nil {
			return nil, ErrCursor
		}
		if string(c) > after {
			after = string(c)
		}
	}
	res := &ListResult{}
	startAfter := ""
	if after != "" {
		startAfter = base + after
	}
	last := after // keys under a delimited prefix already returned are skipped
	for {
		page, err := b.Store.List(ctx, base+o.Prefix, startAfter, 0)
		if err != nil {
			return nil, err
		}
		for _, so := range page.Objects {
			key := strings.TrimPrefix(so.Key, base)
			if o.Delimiter != "" {
				rest := key[len(o.Prefix):]
				if i := strings.Index(rest, o.Delimiter); i >= 0 {
					p := o.Prefix + rest[:i+len(o.Delimiter)]
					if p == last {
						continue
					}
					if len(res.Objects)+len(res.DelimitedPrefixes) == limit {
						res.Truncated = true
						res.Cursor = base64.RawURLEncoding.EncodeToString([]byte(last))
						return res, nil
					}
					res.DelimitedPrefixes = append(res.DelimitedPrefixes, p)
					last = p
					continue
				}
			}
			if len(res.Objects)+len(res.DelimitedPrefixes) == limit {
				res.Truncated = true
				res.Cursor = base64.RawURLEncoding.EncodeToString([]byte(last))
				return res, nil
			}
			obj, err := b.Head(ctx, key)
			if err != nil {
				return nil, err
			}
			if obj == nil {
				continue // deleted meanwhile
			}
			res.Objects = append(res.Objects, obj)
			last = key
		}
		if page.NextStartAfter == "" {
			return res, nil
		}
		startAfter = page.NextStartAfter
	}
}

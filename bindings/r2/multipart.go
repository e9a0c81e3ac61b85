package r2

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// Multipart uploads, as R2 (and miniflare's simulation of it) runs them.
//
// An upload is a record at bucketkey.R2UploadKey, stored in this package's
// format (format.go) with the upload id as version, the object's metadata,
// and the object key as body; and one stored object per part at
// bucketkey.R2PartKey, whose version is the part's etag (random, so that
// re-uploading a part makes a new etag). Completing writes the object and
// marks the record "completed"; aborting marks it "aborted"; both delete the
// parts. The record stays, so that a later call on the upload gets R2's
// answer for a finished upload, not for an unknown one.

// MaxParts is the highest part number.
const MaxParts = 10000

// DefaultMinPartSize is the least size of every part but the last.
const DefaultMinPartSize = 5 << 20

// Record states.
const (
	stateCompleted = "completed"
	stateAborted   = "aborted"
)

// Errors of multipart uploads, without the method's prefix (the binding
// prefixes "<method>: ").
var (
	ErrNoSuchUpload   = errors.New("The specified multipart upload does not exist. (10024)")
	ErrInvalidPart    = errors.New("One or more of the specified parts could not be found. (10025)")
	ErrEntityTooSmall = errors.New("Your proposed upload is smaller than the minimum allowed object size. (10011)")
	ErrBadUpload      = errors.New("There was a problem with the multipart upload. (10048)")
	ErrInternal       = errors.New("We encountered an internal error. Please try again. (10001)")
)

// UploadedPart is R2UploadedPart.
type UploadedPart struct {
	PartNumber int
	ETag       string
}

func randomHex() string {
	var v [16]byte
	_, _ = rand.Read(v[:])
	return hex.EncodeToString(v[:])
}

func (b *Bucket) minPartSize() int64 {
	if b.MinPartSize > 0 {
		return b.MinPartSize
	}
	return DefaultMinPartSize
}

// CreateMultipartUpload starts an upload of key and returns its id.
func (b *Bucket) CreateMultipartUpload(ctx context.Context, key string, http HTTPMetadata, custom map[string]string) (string, error) {
	id := randomHex()
	if len(custom) == 0 {
		custom = nil
	}
	raw, err := Encode(Meta{Version: id, UploadedMs: b.now().UnixMilli(), HTTP: http, Custom: custom}, []byte(key))
	if err != nil {
		return "", err
	}
	if _, err := b.Store.Put(ctx, bucketkey.R2UploadKey(b.Name, id), raw, plugins.PutOptions{IfNoneMatch: true}); err != nil {
		return "", err
	}
	return id, nil
}

// upload loads the record of upload id of key (nil: none, or of another
// key), with its store ETag.
func (b *Bucket) upload(ctx context.Context, key, id string) (*Meta, string, error) {
	if bucketkey.CheckSegment(id) != nil {
		return nil, "", nil
	}
	raw, etag, err := b.Store.Get(ctx, bucketkey.R2UploadKey(b.Name, id))
	if errors.Is(err, plugins.ErrNotFound) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	m, body, err := Decode(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", bucketkey.R2UploadKey(b.Name, id), err)
	}
	if string(body) != key || m.Version != id {
		return nil, "", nil
	}
	return &m, etag, nil
}

// UploadPart stores part n (1 to MaxParts) of upload id and returns its etag.
func (b *Bucket) UploadPart(ctx context.Context, key, id string, n int, body []byte) (string, error) {
	if n < 1 || n > MaxParts {
		return "", fmt.Errorf("part number %d out of 1..%d", n, MaxParts)
	}
	m, _, err := b.upload(ctx, key, id)
	if err != nil {
		return "", err
	}
	if m == nil || m.State != "" {
		return "", ErrNoSuchUpload
	}
	etag := randomHex()
	raw, err := Encode(Meta{Version: etag, UploadedMs: b.now().UnixMilli()}, body)
	if err != nil {
		return "", err
	}
	if _, err := b.Store.Put(ctx, bucketkey.R2PartKey(b.Name, id, n), raw, plugins.PutOptions{}); err != nil {
		return "", err
	}
	return etag, nil
}

// finish marks upload id with state and deletes its parts.
func (b *Bucket) finish(ctx context.Context, key, id string, m Meta, storeETag, state string) error {
	m.State = state
	raw, err := Encode(m, []byte(key))
	if err != nil {
		return err
	}
	if _, err := b.Store.Put(ctx, bucketkey.R2UploadKey(b.Name, id), raw, plugins.PutOptions{IfMatch: storeETag}); err != nil {
		if errors.Is(err, plugins.ErrPreconditionFailed) {
			return ErrNoSuchUpload // finished meanwhile
		}
		return err
	}
	dir := bucketkey.R2UploadDir(b.Name, id)
	after := ""
	for {
		page, err := b.Store.List(ctx, dir+"part-", after, 0)
		if err != nil {
			return err
		}
		for _, o := range page.Objects {
			if err := b.Store.Delete(ctx, o.Key, ""); err != nil {
				return err
			}
		}
		if page.NextStartAfter == "" {
			return nil
		}
		after = page.NextStartAfter
	}
}

// AbortMultipartUpload aborts upload id. Aborting a finished upload does
// nothing; an unknown one is R2's internal error.
func (b *Bucket) AbortMultipartUpload(ctx context.Context, key, id string) error {
	m, setag, err := b.upload(ctx, key, id)
	if err != nil {
		return err
	}
	if m == nil {
		return ErrInternal
	}
	if m.State != "" {
		return nil
	}
	err = b.finish(ctx, key, id, *m, setag, stateAborted)
	if errors.Is(err, ErrNoSuchUpload) {
		return nil
	}
	return err
}

// CompleteMultipartUpload joins the parts (in part-number order) into the
// object key, with the metadata given at creation, and returns it. R2's
// rules, checked in this order: a part number given twice is an internal
// error; each part must exist with its etag (ErrInvalidPart); every part
// but the last argument must have at least the minimum size
// (ErrEntityTooSmall); in part-number order, every part but the last has
// the same size and the last is no larger (ErrBadUpload).
func (b *Bucket) CompleteMultipartUpload(ctx context.Context, key, id string, parts []UploadedPart) (*Object, error) {
	um, setag, err := b.upload(ctx, key, id)
	if err != nil {
		return nil, err
	}
	if um == nil {
		return nil, ErrInternal
	}
	if um.State != "" {
		return nil, ErrNoSuchUpload
	}
	seen := map[int]bool{}
	for _, p := range parts {
		if seen[p.PartNumber] {
			return nil, ErrInternal
		}
		seen[p.PartNumber] = true
	}
	type loaded struct {
		n    int
		body []byte
	}
	got := make([]loaded, len(parts))
	for i, p := range parts {
		if p.PartNumber < 1 || p.PartNumber > MaxParts {
			return nil, ErrInvalidPart
		}
		raw, _, err := b.Store.Get(ctx, bucketkey.R2PartKey(b.Name, id, p.PartNumber))
		if errors.Is(err, plugins.ErrNotFound) {
			return nil, ErrInvalidPart
		}
		if err != nil {
			return nil, err
		}
		pm, body, err := Decode(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bucketkey.R2PartKey(b.Name, id, p.PartNumber), err)
		}
		if pm.Version != p.ETag {
			return nil, ErrInvalidPart
		}
		got[i] = loaded{p.PartNumber, body}
	}
	for i := 0; i+1 < len(got); i++ {
		if int64(len(got[i].body)) < b.minPartSize() {
			return nil, ErrEntityTooSmall
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].n < got[j].n })
	for i := 1; i < len(got); i++ {
		if i < len(got)-1 && len(got[i].body) != len(got[0].body) || len(got[i].body) > len(got[0].body) {
			return nil, ErrBadUpload
		}
	}
	var body bytes.Buffer
	var sums []byte
	for _, p := range got {
		body.Write(p.body)
		s := md5.Sum(p.body)
		sums = append(sums, s[:]...)
	}
	etag := md5.Sum(sums)
	m := Meta{Version: randomHex(), UploadedMs: b.now().UnixMilli(), HTTP: um.HTTP, Custom: um.Custom,
		Multipart: true, Parts: len(got), ETag: hex.EncodeToString(etag[:]) + "-" + strconv.Itoa(len(got))}
	raw, err := Encode(m, body.Bytes())
	if err != nil {
		return nil, err
	}
	if _, err := b.Store.Put(ctx, b.storeKey(key), raw, plugins.PutOptions{}); err != nil {
		return nil, err
	}
	if err := b.finish(ctx, key, id, *um, setag, stateCompleted); err != nil {
		return nil, err
	}
	m2, _, _ := Decode(raw)
	return &Object{Key: key, Meta: m2}, nil
}

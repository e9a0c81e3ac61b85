package plugins

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
)

var (
	// ErrNotFound means the key is absent.
	ErrNotFound = errors.New("object not found")
	// ErrPreconditionFailed means a conditional write or delete was cleanly
	// rejected (S3 412, or 409 ConditionalRequestConflict): it did not apply.
	ErrPreconditionFailed = errors.New("precondition failed")
	// ErrInvalidKey means a key is outside what the store can hold (see
	// CheckKey).
	ErrInvalidKey = errors.New("invalid key")
	// ErrClosed means the store was used after Close.
	ErrClosed = errors.New("store closed")
)

// PutOptions makes a Put conditional. The zero value is an unconditional
// write. Setting both fields is an error.
type PutOptions struct {
	// IfNoneMatch creates the object only if the key is absent
	// (If-None-Match: *); an existing key fails with ErrPreconditionFailed.
	IfNoneMatch bool
	// IfMatch replaces the object only if its current ETag equals IfMatch;
	// another ETag fails with ErrPreconditionFailed, a missing key with
	// ErrNotFound (as AWS answers 404).
	IfMatch string
}

// Object describes one stored object.
type Object struct {
	Key  string
	ETag string
	Size int64
}

// ListPage is one page of a listing.
type ListPage struct {
	// Objects are in byte order of their keys.
	Objects []Object
	// NextStartAfter is the startAfter for the next page, "" when the
	// listing is complete.
	NextStartAfter string
}

// ObjectStore is a bucket with conditional writes: the only coordinator
// between the nodes sharing it (see the bucket protocol, section 1).
//
// It is called by storage (LTX uploads, restores, markers), by ownership
// (node leases and cell ownership records, with conditional writes) and by
// the start-up/diagnose probe, from any goroutine: all
// methods are safe for concurrent use, and a store may also be shared with
// other processes or nodes. Close is called once, by whoever opened the
// store, after every other call has returned.
//
// Keys are non-empty UTF-8, "/"-separated; CheckKey describes the portable
// subset every store accepts. ETags are opaque strings, unique per write:
// compare them only for equality. A conditional write that fails with an
// error other than ErrPreconditionFailed or ErrNotFound is ambiguous (it may
// have applied): re-read and reconcile, never retry it blindly. Put does not
// retain body; Get returns a slice the caller owns.
type ObjectStore interface {
	// Get returns the object's body and ETag, or ErrNotFound.
	Get(ctx context.Context, key string) (body []byte, etag string, err error)
	// Head returns the object's ETag, or ErrNotFound.
	Head(ctx context.Context, key string) (etag string, err error)
	// Put writes the object, subject to opts, and returns its new ETag.
	// A write is visible to every later Get, Head and List (read after
	// write).
	Put(ctx context.Context, key string, body []byte, opts PutOptions) (etag string, err error)
	// Delete removes the object. With ifMatch "" it is unconditional and a
	// missing key is not an error; otherwise it applies only if the current
	// ETag equals ifMatch (else ErrPreconditionFailed) and a missing key
	// fails with ErrNotFound.
	Delete(ctx context.Context, key string, ifMatch string) error
	// List returns up to limit objects (a store default when limit <= 0)
	// whose keys start with prefix and sort after startAfter, in byte order.
	List(ctx context.Context, prefix, startAfter string, limit int) (ListPage, error)
	// Close releases the store's resources. Later calls fail with ErrClosed.
	Close() error
}

// MultiGetter is an ObjectStore that reads several objects in one call
// more cheaply than with one Get each (the file store: one read
// transaction). ownership's CheckAll uses it for the acknowledgement
// checks of one upload round; with any other store it calls Get per key.
// GetMany is safe for concurrent use, like Get.
type MultiGetter interface {
	// GetMany returns, for each key, what Get would return for it, at one
	// moment: every result reflects the same state of the store.
	GetMany(ctx context.Context, keys []string) []GetResult
}

// GetResult is one key's answer of MultiGetter.GetMany.
type GetResult struct {
	Body []byte
	ETag string
	Err  error
}

// MaxKeyLen is the longest key in bytes that CheckKey accepts (as S3).
const MaxKeyLen = 1024

// CheckKey reports whether key is in the portable subset every store holds:
// at most MaxKeyLen bytes of valid UTF-8 without NUL, made of "/"-separated
// segments that are neither empty (no leading, trailing or doubled "/") nor
// "." or "..". The error wraps ErrInvalidKey and says what is wrong.
func CheckKey(key string) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	case len(key) > MaxKeyLen:
		return fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidKey, len(key), MaxKeyLen)
	case !utf8.ValidString(key):
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidKey)
	case strings.IndexByte(key, 0) >= 0:
		return fmt.Errorf("%w: contains NUL", ErrInvalidKey)
	case key[0] == '/':
		return fmt.Errorf("%w: leading \"/\"", ErrInvalidKey)
	case key[len(key)-1] == '/':
		return fmt.Errorf("%w: trailing \"/\"", ErrInvalidKey)
	}
	for _, seg := range strings.Split(key, "/") {
		switch seg {
		case "":
			return fmt.Errorf("%w: empty segment (\"//\")", ErrInvalidKey)
		case ".", "..":
			return fmt.Errorf("%w: segment %q is not allowed", ErrInvalidKey, seg)
		}
	}
	return nil
}

// StoreOpener opens the store a bucket URL names. It is called by
// OpenStore, with u.Scheme equal to the registered scheme.
type StoreOpener func(ctx context.Context, u *url.URL) (ObjectStore, error)

var schemePattern = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// RegisterStore registers open for bucket URLs with the given scheme. It
// is meant to be called from init() and panics on a malformed or
// duplicate scheme.
func RegisterStore(scheme string, open StoreOpener) {
	if !schemePattern.MatchString(scheme) {
		panic(fmt.Sprintf("plugins: register store %q: malformed scheme (want [a-z][a-z0-9]*)", scheme))
	}
	if open == nil {
		panic(fmt.Sprintf("plugins: register store %q: open is nil", scheme))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := stores[scheme]; dup {
		panic(fmt.Sprintf("plugins: register store %q: already registered", scheme))
	}
	stores[scheme] = open
}

// StoreSchemes returns the registered bucket URL schemes, sorted.
func StoreSchemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(stores))
	for s := range stores {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// UnknownSchemeError is returned by OpenStore for a URL whose scheme no
// store registered.
type UnknownSchemeError struct {
	Scheme string   // "" when the URL has none
	URL    string   // the URL, password redacted
	Known  []string // the registered schemes
}

func (e *UnknownSchemeError) Error() string {
	known := "no bucket schemes are registered (import bindings/standard)"
	if len(e.Known) > 0 {
		known = "known schemes are " + strings.Join(e.Known, ", ")
	}
	if e.Scheme == "" {
		return fmt.Sprintf("missing bucket scheme in %q: %s", e.URL, known)
	}
	return fmt.Sprintf("unknown bucket scheme %q in %q: %s", e.Scheme, e.URL, known)
}

// OpenStore opens the store named by a bucket URL such as "file:///var/lib/x",
// "mem://test" or "s3://bucket/prefix", choosing the store by scheme.
func OpenStore(ctx context.Context, rawURL string) (ObjectStore, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("parse bucket url: %w", err)
	}
	mu.RLock()
	open, ok := stores[u.Scheme]
	mu.RUnlock()
	if !ok {
		return nil, &UnknownSchemeError{Scheme: u.Scheme, URL: u.Redacted(), Known: StoreSchemes()}
	}
	s, err := open(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("open %s bucket %q: %w", u.Scheme, u.Redacted(), err)
	}
	return s, nil
}

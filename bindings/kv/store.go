package kv

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// A namespace in the bucket: each entry is one store object at
// bucketkey.KVKey(<namespace>, <key>), so that a fleet sharing the bucket
// shares the namespace (as R2 objects are shared):
//
//	"CHKV" 0x01 | uint32 big-endian n | n bytes of JSON | value
//
// The JSON is {"expiration":<unix s>,"metadata":"<JSON text>"}, empty
// fields omitted. Decode rejects anything else.

var entryMagic = []byte("CHKV\x01")

// entryMeta is the JSON beside a value.
type entryMeta struct {
	Expiration int64  `json:"expiration,omitempty"`
	Metadata   string `json:"metadata,omitempty"`
}

// ErrFormat means stored bytes are not a KV entry of this format.
var ErrFormat = errors.New("kv: not a stored KV entry")

// EncodeEntry returns the stored bytes of e.
func EncodeEntry(e Entry) ([]byte, error) {
	if e.Expiration < 0 {
		return nil, fmt.Errorf("kv: negative expiration %d", e.Expiration)
	}
	j, err := json.Marshal(entryMeta{Expiration: e.Expiration, Metadata: e.Metadata})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(entryMagic)+4+len(j)+len(e.Value))
	out = append(out, entryMagic...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(j)))
	out = append(out, j...)
	return append(out, e.Value...), nil
}

// DecodeEntry reads stored bytes (the value is a sub-slice of b).
func DecodeEntry(b []byte) (Entry, error) {
	if !bytes.HasPrefix(b, entryMagic) || len(b) < len(entryMagic)+4 {
		return Entry{}, fmt.Errorf("%w: bad header", ErrFormat)
	}
	n := binary.BigEndian.Uint32(b[len(entryMagic):])
	rest := b[len(entryMagic)+4:]
	if n > MaxMetadataBytes+256 || uint64(n) > uint64(len(rest)) {
		return Entry{}, fmt.Errorf("%w: metadata length %d", ErrFormat, n)
	}
	var m entryMeta
	dec := json.NewDecoder(bytes.NewReader(rest[:n]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || dec.More() {
		return Entry{}, fmt.Errorf("%w: metadata: %v", ErrFormat, err)
	}
	if m.Expiration < 0 {
		return Entry{}, fmt.Errorf("%w: negative expiration", ErrFormat)
	}
	return Entry{Value: rest[n:], Expiration: m.Expiration, Metadata: m.Metadata}, nil
}

// OpenStore opens namespace id in store (the host's bucket). If legacy
// names an SQLite file of the namespace from before it lived in the bucket,
// its entries are copied into the bucket once (keys the bucket already
// has are kept) and the file is renamed to legacy+".moved".
func OpenStore(store plugins.ObjectStore, id, legacy string) (*Namespace, error) {
	if err := bucketkey.CheckSegment(id); err != nil {
		return nil, fmt.Errorf("kv namespace %q: %w", id, err)
	}
	n := &Namespace{store: store, ns: id}
	if legacy != "" {
		if _, err := os.Stat(legacy); err == nil {
			if err := n.importLegacy(legacy); err != nil {
				return nil, fmt.Errorf("kv namespace %q: move %s into the bucket: %w", id, legacy, err)
			}
		}
	}
	return n, nil
}

func (n *Namespace) importLegacy(path string) error {
	old, err := Open(path)
	if err != nil {
		return err
	}
	defer old.Close()
	cursor := ""
	for {
		keys, next, err := old.List("", cursor, MaxListLimit)
		if err != nil {
			return err
		}
		for _, k := range keys {
			e, ok, err := old.Get(k.Name)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			raw, err := EncodeEntry(e)
			if err != nil {
				return err
			}
			_, err = n.store.Put(context.Background(), bucketkey.KVKey(n.ns, k.Name), raw, plugins.PutOptions{IfNoneMatch: true})
			if err != nil && !errors.Is(err, plugins.ErrPreconditionFailed) {
				return err
			}
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if err := old.Close(); err != nil {
		return err
	}
	return os.Rename(path, path+".moved")
}

func (n *Namespace) storeGet(key string) (Entry, bool, error) {
	raw, _, err := n.store.Get(context.Background(), bucketkey.KVKey(n.ns, key))
	if errors.Is(err, plugins.ErrNotFound) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("kv get: %w", err)
	}
	e, err := DecodeEntry(raw)
	if err != nil {
		return Entry{}, false, fmt.Errorf("kv get %s: %w", bucketkey.KVKey(n.ns, key), err)
	}
	if e.Expiration != 0 && e.Expiration <= n.now() {
		return Entry{}, false, nil
	}
	return e, true, nil
}

func (n *Namespace) storePut(key string, e Entry) error {
	raw, err := EncodeEntry(e)
	if err != nil {
		return fmt.Errorf("kv put: %w", err)
	}
	if _, err := n.store.Put(context.Background(), bucketkey.KVKey(n.ns, key), raw, plugins.PutOptions{}); err != nil {
		return fmt.Errorf("kv put: %w", err)
	}
	return nil
}

func (n *Namespace) storeDelete(key string) error {
	err := n.store.Delete(context.Background(), bucketkey.KVKey(n.ns, key), "")
	if err != nil && !errors.Is(err, plugins.ErrNotFound) {
		return fmt.Errorf("kv delete: %w", err)
	}
	return nil
}

// storeList lists the namespace's keys in byte order (the store lists them
// in base64 order, so the names are sorted here), reading entries only
// until the page is full.
func (n *Namespace) storeList(prefix, after string, limit int) ([]Key, string, error) {
	ctx := context.Background()
	base := bucketkey.KVNamespacePrefix(n.ns)
	var names []string
	start := ""
	for {
		page, err := n.store.List(ctx, base, start, 0)
		if err != nil {
			return nil, "", fmt.Errorf("kv list: %w", err)
		}
		for _, o := range page.Objects {
			_, name, err := bucketkey.ParseKVKey(o.Key)
			if err != nil {
				continue // not an entry of this format: skipped
			}
			if name > after && strings.HasPrefix(name, prefix) {
				names = append(names, name)
			}
		}
		if page.NextStartAfter == "" {
			break
		}
		start = page.NextStartAfter
	}
	sort.Strings(names)
	var keys []Key
	for _, name := range names {
		e, ok, err := n.storeGet(name)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			continue
		}
		keys = append(keys, Key{Name: name, Expiration: e.Expiration, Metadata: e.Metadata})
		if len(keys) > limit {
			break
		}
	}
	next := ""
	if len(keys) > limit {
		keys = keys[:limit]
		next = base64.RawURLEncoding.EncodeToString([]byte(keys[limit-1].Name))
	}
	return keys, next, nil
}

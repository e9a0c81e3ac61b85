package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// Store is the part of the bucket fleet uses; every plugins.ObjectStore is
// one. Called from any goroutine.
type Store interface {
	Get(ctx context.Context, key string) (body []byte, etag string, err error)
	Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (etag string, err error)
	List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error)
}

var _ Store = plugins.ObjectStore(nil)

// secretVersion is the version of the secret record's format and of the
// key derivation; a node refuses a record of another version.
const secretVersion = 1

// Secret is the fleet secret: every node of a fleet reads the same one
// from the bucket and signs and checks peer traffic with it.
type Secret struct {
	Version int
	Key     []byte // 32 bytes
}

type secretRecord struct {
	Version int    `json:"version"`
	Key     string `json:"key"` // 64 lowercase hex
}

// DecodeSecret decodes the record at bucketkey.PeerSecretKey.
func DecodeSecret(body []byte) (Secret, error) {
	var rec secretRecord
	if err := decodeStrict(body, &rec); err != nil {
		return Secret{}, fmt.Errorf("decode %s: %w", bucketkey.PeerSecretKey, err)
	}
	if rec.Version != secretVersion {
		return Secret{}, fmt.Errorf("decode %s: version %d, this cellhost knows %d: every node of a fleet must read the secret; upgrade this node", bucketkey.PeerSecretKey, rec.Version, secretVersion)
	}
	key, err := hex.DecodeString(rec.Key)
	if err != nil || len(key) != 32 || hex.EncodeToString(key) != rec.Key {
		return Secret{}, fmt.Errorf("decode %s: key is not 64 lowercase hex digits", bucketkey.PeerSecretKey)
	}
	return Secret{Version: rec.Version, Key: key}, nil
}

// LoadSecret reads the fleet secret, creating it (If-None-Match: *) when
// the bucket has none yet: the first node creates it, every other reads
// the winner's. An ambiguous create is settled by reading.
func LoadSecret(ctx context.Context, store Store) (Secret, error) {
	for range 3 {
		body, _, err := store.Get(ctx, bucketkey.PeerSecretKey)
		if err == nil {
			return DecodeSecret(body)
		}
		if !errors.Is(err, plugins.ErrNotFound) {
			return Secret{}, fmt.Errorf("read %s: %w", bucketkey.PeerSecretKey, err)
		}
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return Secret{}, err
		}
		rec, _ := json.Marshal(secretRecord{Version: secretVersion, Key: hex.EncodeToString(key)})
		_, err = store.Put(ctx, bucketkey.PeerSecretKey, rec, plugins.PutOptions{IfNoneMatch: true})
		if err == nil {
			return Secret{Version: secretVersion, Key: key}, nil
		}
		// Rejected: another node created it first. Ambiguous: it may have
		// landed. Either way, the next read decides.
	}
	return Secret{}, fmt.Errorf("create %s: gave up after 3 attempts", bucketkey.PeerSecretKey)
}

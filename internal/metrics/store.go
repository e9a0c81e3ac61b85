package metrics

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// KeyKind names the part of the bucket protocol a key belongs to, for the
// kind label of the bucket metrics: node (leases), own (cell ownership),
// ltx, marker (node-cells), wake, waker, deployment, secret, r2, kv, probe,
// or other.
func KeyKind(key string) string {
	switch {
	case strings.HasPrefix(key, bucketkey.NodesPrefix):
		return "node"
	case strings.HasPrefix(key, bucketkey.CellsPrefix):
		if _, err := bucketkey.ParseOwnKey(key); err == nil {
			return "own"
		}
		if strings.Contains(key, "/ltx/") {
			return "ltx"
		}
		return "other"
	case strings.HasPrefix(key, bucketkey.MarkersPrefix):
		return "marker"
	case key == bucketkey.WakerKey:
		return "waker"
	case strings.HasPrefix(key, bucketkey.WakePrefix):
		return "wake"
	case strings.HasPrefix(key, bucketkey.DeploymentsPrefix):
		return "deployment"
	case key == bucketkey.PeerSecretKey, key == bucketkey.FleetCAKey:
		return "secret"
	case strings.HasPrefix(key, bucketkey.R2Prefix), strings.HasPrefix(key, bucketkey.R2UploadsPrefix):
		return "r2"
	case strings.HasPrefix(key, bucketkey.KVPrefix):
		return "kv"
	case strings.HasPrefix(key, bucketkey.ProbePrefix):
		return "probe"
	}
	return "other"
}

// errorKind is the error label of a failed call.
func errorKind(err error) string {
	switch {
	case errors.Is(err, plugins.ErrPreconditionFailed):
		return "precondition_failed"
	case errors.Is(err, plugins.ErrNotFound):
		return "not_found"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "error"
}

// Store wraps an object store so that every call is counted and timed;
// the writes of this node's lease record (node, the node id) count as
// lease renewals and the writes of LTX files as uploads. It keeps the
// optional interfaces of plugins (MultiGetter) when the store has them.
// The wrapper adds no behaviour: every call and its answer pass unchanged.
func (s *Set) Store(st plugins.ObjectStore, node string) plugins.ObjectStore {
	w := &store{ObjectStore: st, m: s, leaseKey: bucketkey.NodeKey(node)}
	if mg, ok := st.(plugins.MultiGetter); ok {
		return &multiStore{store: w, mg: mg}
	}
	return w
}

type store struct {
	plugins.ObjectStore
	m        *Set
	leaseKey string
}

func (w *store) observe(op, key string, start time.Time, err error) {
	kind := KeyKind(key)
	w.m.bucketOps.WithLabelValues(op, kind).Inc()
	w.m.bucketDuration.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil {
		w.m.bucketErrors.WithLabelValues(op, kind, errorKind(err)).Inc()
	}
}

func (w *store) Get(ctx context.Context, key string) ([]byte, string, error) {
	start := time.Now()
	b, etag, err := w.ObjectStore.Get(ctx, key)
	w.observe("get", key, start, err)
	return b, etag, err
}

func (w *store) Head(ctx context.Context, key string) (string, error) {
	start := time.Now()
	etag, err := w.ObjectStore.Head(ctx, key)
	w.observe("head", key, start, err)
	return etag, err
}

func (w *store) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	start := time.Now()
	etag, err := w.ObjectStore.Put(ctx, key, body, opts)
	w.observe("put", key, start, err)
	switch {
	case key == w.leaseKey && err == nil:
		w.m.leaseRenewals.Inc()
	case key == w.leaseKey:
		w.m.leaseRenewalFails.Inc()
	case err == nil && KeyKind(key) == "ltx":
		w.m.ltxUploads.Inc()
		w.m.ltxUploadBytes.Add(float64(len(body)))
	}
	return etag, err
}

func (w *store) Delete(ctx context.Context, key, ifMatch string) error {
	start := time.Now()
	err := w.ObjectStore.Delete(ctx, key, ifMatch)
	w.observe("delete", key, start, err)
	return err
}

func (w *store) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	start := time.Now()
	p, err := w.ObjectStore.List(ctx, prefix, startAfter, limit)
	w.observe("list", prefix, start, err)
	return p, err
}

type multiStore struct {
	*store
	mg plugins.MultiGetter
}

func (w *multiStore) GetMany(ctx context.Context, keys []string) []plugins.GetResult {
	start := time.Now()
	out := w.mg.GetMany(ctx, keys)
	for i, r := range out {
		w.observe("get", keys[i], start, r.Err)
	}
	return out
}

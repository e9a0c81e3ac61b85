package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cellhost/cellhost/ownership"
)

// In the backup mode a reply leaves once its commit is fsync'd locally, so
// after a crash the local database may hold acknowledged writes that no
// snapshot in the bucket has. "The bucket wins" (bucket-protocol.md 5)
// would throw them away. So, in the backup mode only, an activation keeps
// the local database when it is provably this node's and at least as new
// as anything in the bucket:
//
//   - a mark beside the database (<id>.sqlite.owner, written and fsync'd
//     before the database opens at a new epoch, so before any of its
//     commits) names this node and the epoch E whose writes the file holds;
//   - the newest epoch with LTX data in the bucket is at most E.
//
// Only the owner at E writes under e<E>/ (epochs are unique per acquisition,
// own.json is CASed), and every file this node wrote under e<=E was read
// from this database, so the database is a descendant of everything the
// bucket holds. Once any other owner uploads at a later epoch, the bucket
// is newer and wins as usual. A node that crashed after taking a new epoch
// but before writing the mark never opened the database at that epoch, so
// the file still holds exactly E's writes. A database that does not open
// is replaced from the bucket.

// ownerMark is the content of <db>.owner.
type ownerMark struct {
	Node  string `json:"node"`
	Epoch uint64 `json:"epoch"`
}

func ownerMarkPath(dbPath string) string { return dbPath + ".owner" }

// readOwnerMark returns the mark beside dbPath; ok is false when there is
// none or it cannot be decoded (the bucket then wins).
func readOwnerMark(dbPath string) (m ownerMark, ok bool) {
	b, err := os.ReadFile(ownerMarkPath(dbPath))
	if err != nil {
		return ownerMark{}, false
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Epoch == 0 {
		return ownerMark{}, false
	}
	return m, true
}

// writeOwnerMark replaces the mark beside dbPath durably: a temporary file,
// fsync, rename, fsync of the directory.
func writeOwnerMark(dbPath string, m ownerMark) error {
	b, _ := json.Marshal(m)
	dir := filepath.Dir(dbPath)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(dbPath)+".owner-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, ownerMarkPath(dbPath))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write owner mark of %s: %w", dbPath, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// nodeID is this node's id, or "" without ownership.
func (h *Host) nodeID() string {
	if h.cfg.Node == nil {
		return ""
	}
	return h.cfg.Node.ID()
}

// localWins reports whether the backup mode keeps the local database at
// path instead of restoring the bucket's newest generation (see above).
func (h *Host) localWins(ctx context.Context, scope, path string) (bool, error) {
	if !h.dur.keepsLocal() {
		return false, nil
	}
	m, ok := readOwnerMark(path)
	if !ok || m.Node != h.nodeID() {
		return false, nil
	}
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	newest, found, err := ownership.NewestLTXEpoch(ctx, h.cfg.Bucket, scope)
	if err != nil {
		return false, err
	}
	return !found || newest <= m.Epoch, nil
}

package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// objectNames is cellhost dev's record of the objects its host
// constructed, with the name of the id that reached them
// (getByName/idFromName), kept in <state>/objects.sqlite so that it
// survives restarts. An object's own database names it only once it set
// an alarm (_cf_METADATA, as workerd's), and an object that never wrote
// may have no database worth listing: the inspector reads both.
//
// record is called on the host's loops and never blocks: names are
// written by one goroutine, in order.
type objectNames struct {
	path string

	mu      sync.Mutex
	known   map[objectKey]string // what is stored (or queued), by object
	pending []objectRow
	wake    chan struct{}
	done    chan struct{}
	closed  bool
	db      *sql.DB
	err     error // the store could not be opened: names are kept in memory only
}

type objectKey struct{ class, id string }

type objectRow struct{ class, id, name string }

// openObjectNames opens (creating) stateDir/objects.sqlite, 0600 like every
// data file of the state directory, and loads what it holds. A store that
// does not open is reported by err; the record then lives in memory.
func openObjectNames(stateDir string) (*objectNames, error) {
	n := &objectNames{path: filepath.Join(stateDir, "objects.sqlite"), known: map[objectKey]string{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	n.err = n.open()
	go n.writer()
	return n, n.err
}

func (n *objectNames) open() error {
	if f, err := os.OpenFile(n.path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return err
	} else {
		f.Close()
	}
	db, err := sql.Open("sqlite", "file:"+n.path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(wal)")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS objects (class TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL DEFAULT '', PRIMARY KEY (class, id)) WITHOUT ROWID`); err != nil {
		db.Close()
		return err
	}
	rows, err := db.Query(`SELECT class, id, name FROM objects`)
	if err != nil {
		db.Close()
		return err
	}
	for rows.Next() {
		var r objectRow
		if rows.Scan(&r.class, &r.id, &r.name) == nil {
			n.known[objectKey{r.class, r.id}] = r.name
		}
	}
	rows.Close()
	n.db = db
	return nil
}

// maxRecordedName bounds a stored name (workerd passes names up to 1 KiB
// on; longer ones reach the object unnamed).
const maxRecordedName = 1024

// record notes that object id of class was constructed, reached by name
// ("" when by id). A name once known is kept when a later activation
// comes by id. Safe from any goroutine; never blocks on the store.
func (n *objectNames) record(class, id, name string) {
	if len(name) > maxRecordedName {
		name = ""
	}
	k := objectKey{class, id}
	n.mu.Lock()
	old, ok := n.known[k]
	if n.closed || ok && (name == "" || name == old) {
		n.mu.Unlock()
		return
	}
	n.known[k] = name
	n.pending = append(n.pending, objectRow{class, id, name})
	select { // under mu: close cannot close wake in between
	case n.wake <- struct{}{}:
	default:
	}
	n.mu.Unlock()
}

// writer stores the queued rows until close.
func (n *objectNames) writer() {
	defer close(n.done)
	for range n.wake {
		n.flush()
	}
	n.flush()
}

func (n *objectNames) flush() {
	n.mu.Lock()
	rows := n.pending
	n.pending = nil
	n.mu.Unlock()
	if n.db == nil || len(rows) == 0 {
		return
	}
	tx, err := n.db.Begin()
	if err != nil {
		return
	}
	for _, r := range rows {
		_, _ = tx.Exec(`INSERT INTO objects (class, id, name) VALUES (?, ?, ?) ON CONFLICT (class, id) DO UPDATE SET name = excluded.name WHERE excluded.name != ''`, r.class, r.id, r.name)
	}
	_ = tx.Commit()
}

// close stores what is queued and closes the store.
func (n *objectNames) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	close(n.wake)
	<-n.done
	if n.db != nil {
		n.db.Close()
	}
}

// name is the recorded name of an object ("" : none known).
func (n *objectNames) name(class, id string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.known[objectKey{class, id}]
}

// has reports whether the object was recorded.
func (n *objectNames) has(class, id string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	_, ok := n.known[objectKey{class, id}]
	return ok
}

// ids lists the recorded objects of class, sorted.
func (n *objectNames) ids(class string) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for k := range n.known {
		if k.class == class {
			out = append(out, k.id)
		}
	}
	sort.Strings(out)
	return out
}

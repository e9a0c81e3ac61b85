package filestore

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// groupSync makes many concurrent writers' data durable with one
// syncfs(2) of the store's filesystem per round instead of an fsync per
// file and directory: a writer waits for the first round that starts after
// it finished writing, and whoever finds no round running starts one. This
// is the group commit of the LTX uploads of many cells at once. No library
// offers this combiner for files; it is a dozen lines.
type groupSync struct {
	root string
	sync func() error // syncfs of root; replaced in tests

	mu                sync.Mutex
	cond              *sync.Cond
	started, finished uint64           // rounds; guarded by mu
	errs              map[uint64]error // failed rounds, kept briefly; guarded by mu
}

func newGroupSync(root string) *groupSync {
	g := &groupSync{root: root, errs: map[uint64]error{}}
	g.sync = g.syncfs
	g.cond = sync.NewCond(&g.mu)
	return g
}

// wait returns once everything the caller wrote before calling it is on
// stable storage (or the round that should have made it so failed).
func (g *groupSync) wait() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	need := g.started + 1 // a round that starts after the caller's writes
	for g.finished < need {
		if g.started > g.finished {
			g.cond.Wait()
			continue
		}
		g.started++
		round := g.started
		g.mu.Unlock()
		err := g.sync()
		g.mu.Lock()
		g.finished = round
		if err != nil {
			g.errs[round] = err
		}
		delete(g.errs, round-64) // nobody still waits for a round that old
		g.cond.Broadcast()
	}
	return g.errs[need]
}

func (g *groupSync) syncfs() error {
	f, err := os.Open(g.root)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return &os.PathError{Op: "syncfs", Path: g.root, Err: err}
	}
	return nil
}

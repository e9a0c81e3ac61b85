package filestore

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGroupSync_ConcurrentWritersShareRounds(t *testing.T) {
	g := newGroupSync(t.TempDir())
	var rounds atomic.Int32
	g.sync = func() error {
		rounds.Add(1)
		time.Sleep(5 * time.Millisecond) // a slow disk: writers pile up
		return nil
	}
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.wait(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := rounds.Load(); n < 1 || n > 32 {
		t.Errorf("64 concurrent writers took %d syncfs rounds, want them shared (1..32)", n)
	}
}

func TestGroupSync_WaiterSeesItsRoundsError(t *testing.T) {
	g := newGroupSync(t.TempDir())
	boom := errors.New("disk on fire")
	g.sync = func() error { return boom }
	if err := g.wait(); !errors.Is(err, boom) {
		t.Fatalf("wait = %v, want %v", err, boom)
	}
	g.sync = func() error { return nil }
	if err := g.wait(); err != nil {
		t.Fatalf("a later good round: %v", err)
	}
}

func TestGroupSync_RealSyncfs(t *testing.T) {
	if err := newGroupSync(t.TempDir()).wait(); err != nil {
		t.Fatal(err)
	}
}

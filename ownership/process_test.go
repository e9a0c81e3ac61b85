package ownership_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins/filestore"
)

// Environment of a child process of TestNode_CrossProcess.
const (
	envChildDir  = "CELLHOST_OWNERSHIP_CHILD_DIR" // the bucket directory; set only in children
	envChildCtl  = "CELLHOST_OWNERSHIP_CHILD_CTL" // the control directory
	envChildID   = "CELLHOST_OWNERSHIP_CHILD_ID"
	crossProcTTL = 6 * time.Second // long enough for renewals on a loaded machine
)

// TestNode_CrossProcess runs Nodes in separate processes (this test binary,
// re-executed in child mode) on one file:// bucket directory. Round 1: they
// race TryAcquire on one cell and exactly one wins epoch 1. Round 2: the
// winner is killed with SIGKILL; once its lease expires the survivors race
// again and exactly one wins epoch 2. Then every survivor closes cleanly:
// the cell is released and no lease is left.
func TestNode_CrossProcess(t *testing.T) {
	if dir := os.Getenv(envChildDir); dir != "" {
		crossProcessChild(t, dir, os.Getenv(envChildCtl), os.Getenv(envChildID))
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const procs = 4
	dir, ctl := t.TempDir(), t.TempDir()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNode_CrossProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), envChildDir+"="+dir, envChildCtl+"="+ctl, envChildID+"="+strconv.Itoa(i))
		outs[i] = new(strings.Builder)
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatalf("start child %d: %v", i, err)
		}
		cmds[i] = cmd
	}
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
		if t.Failed() {
			for i, o := range outs {
				t.Logf("child %d:\n%s", i, o)
			}
		}
	}()
	touch := func(name string) {
		if err := os.WriteFile(filepath.Join(ctl, name), nil, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	results := func(round string, ids []int) map[int]string {
		got := map[int]string{}
		deadline := time.Now().Add(time.Minute)
		for len(got) < len(ids) {
			if time.Now().After(deadline) {
				t.Fatalf("round %s: results %v, want %d", round, got, len(ids))
			}
			for _, i := range ids {
				if b, err := os.ReadFile(filepath.Join(ctl, round+"-"+strconv.Itoa(i))); err == nil {
					got[i] = string(b)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		return got
	}
	store, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	own := func() string { return getString(t, store, ownKey) }

	all := []int{0, 1, 2, 3}
	waitFiles(t, ctl, "ready-", procs)
	touch("go1")
	winner := oneWinner(t, "1", results("1", all), 1)
	if !strings.Contains(own(), `"epoch":1}`) {
		t.Errorf("own.json = %s after round 1", own())
	}

	if err := cmds[winner].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmds[winner].Wait()
	var rest []int
	for _, i := range all {
		if i != winner {
			rest = append(rest, i)
		}
	}
	touch("go2")
	winner2 := oneWinner(t, "2", results("2", rest), 2)
	if !strings.Contains(own(), `"epoch":2}`) {
		t.Errorf("own.json = %s after round 2", own())
	}

	touch("stop")
	for _, i := range rest {
		if err := cmds[i].Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	_ = winner2
	if got := own(); got != `{"node":"","epoch":2}` {
		t.Errorf("own.json = %s after the survivors closed, want released at epoch 2", got)
	}
	// The killed node's lease stays (dead) until dead-node GC; the others' are gone.
	if keys := listKeys(t, store, "nodes/"); len(keys) != 1 {
		t.Errorf("leases left: %v, want only the killed node's", keys)
	}
}

// oneWinner checks that exactly one result of a round is "WON <epoch>" and
// the rest are "ELSEWHERE", and returns the winner.
func oneWinner(t *testing.T, round string, res map[int]string, epoch int) int {
	t.Helper()
	winner := -1
	for i, r := range res {
		switch {
		case r == "WON "+strconv.Itoa(epoch):
			if winner >= 0 {
				t.Fatalf("round %s: children %d and %d both won: %v", round, winner, i, res)
			}
			winner = i
		case strings.HasPrefix(r, "ELSEWHERE "):
		default:
			t.Fatalf("round %s: child %d: %s", round, i, r)
		}
	}
	if winner < 0 {
		t.Fatalf("round %s: nobody won: %v", round, res)
	}
	return winner
}

func waitFiles(t *testing.T, dir, prefix string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ents, _ := os.ReadDir(dir)
		c := 0
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), prefix) {
				c++
			}
		}
		if c >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d %s* files, want %d", c, prefix, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func crossProcessChild(t *testing.T, dir, ctl, id string) {
	ctx := context.Background()
	store, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	n, err := ownership.New(ownership.Config{Store: store, TTL: crossProcTTL, Log: testLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(ctx); err != nil {
		t.Fatal(err)
	}
	file := func(name string) string { return filepath.Join(ctl, name) }
	wait := func(name string) {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(file(name)); err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never appeared", name)
			}
		}
	}
	report := func(round, result string) {
		tmp := file("tmp-" + round + "-" + id)
		if err := os.WriteFile(tmp, []byte(result), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file(round+"-"+id)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file("ready-"+id), nil, 0o666); err != nil {
		t.Fatal(err)
	}

	wait("go1")
	l, err := n.TryAcquire(ctx, scope)
	var oe *ownership.CellOwnedElsewhereError
	switch {
	case err == nil:
		report("1", fmt.Sprintf("WON %d", l.Epoch))
		select {} // hold the cell until killed
	case errors.As(err, &oe):
		report("1", "ELSEWHERE "+oe.Owner)
	default:
		report("1", "ERROR "+err.Error())
		t.Fatal(err)
	}
	dead := oe.Owner

	// Round 2: retry until the dead owner's lease expires and somebody
	// (maybe me) takes the cell.
	wait("go2")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		l, err = n.TryAcquire(ctx, scope)
		if err == nil {
			report("2", fmt.Sprintf("WON %d", l.Epoch))
			break
		}
		if !errors.As(err, &oe) {
			report("2", "ERROR "+err.Error())
			t.Fatal(err)
		}
		if oe.Owner != dead {
			report("2", "ELSEWHERE "+oe.Owner)
			break
		}
		if time.Now().After(deadline) {
			report("2", "ERROR the dead owner's lease never expired")
			t.Fatal("timeout")
		}
	}
	wait("stop")
	if err := n.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

package filestore_test

import (
	"bufio"
	"bytes"
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

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/storetest"
)

// Environment of a child process of TestStore_CrossProcess.
const (
	envChildDir = "CELLHOST_FILESTORE_CHILD_DIR" // the store root; set only in children
	envChildID  = "CELLHOST_FILESTORE_CHILD_ID"
)

const (
	crossProcesses = 4
	crossKeys      = 50
)

// TestStore_CrossProcess runs processes (this test binary, re-executed in
// child mode) that race IfNoneMatch creates on the same keys and CAS
// increments of one counter on one directory: every key must have exactly
// one winner and no increment may be lost.
func TestStore_CrossProcess(t *testing.T) {
	if dir := os.Getenv(envChildDir); dir != "" {
		crossProcessChild(t, dir, os.Getenv(envChildID))
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	ctx := context.Background()
	dir := t.TempDir()
	s, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Put(ctx, "counter", []byte("0"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}

	startFile := filepath.Join(t.TempDir(), "start")
	cmds := make([]*exec.Cmd, crossProcesses)
	outs := make([]*bytes.Buffer, crossProcesses)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestStore_CrossProcess$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(),
			envChildDir+"="+dir,
			envChildID+"="+strconv.Itoa(i),
			"CELLHOST_FILESTORE_CHILD_START="+startFile,
		)
		outs[i] = new(bytes.Buffer)
		cmd.Stdout = outs[i]
		cmd.Stderr = outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatalf("start child %d: %v", i, err)
		}
		cmds[i] = cmd
	}
	// Let every child reach its barrier, then release them together.
	if err := os.WriteFile(startFile, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child %d: %v\n%s", i, err, outs[i])
		}
	}

	winners := map[string][]string{} // key -> ids of the children that won it
	for i, out := range outs {
		sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
		for sc.Scan() {
			if key, ok := strings.CutPrefix(sc.Text(), "WON "); ok {
				winners[key] = append(winners[key], strconv.Itoa(i))
			}
		}
	}
	for k := range crossKeys {
		key := fmt.Sprintf("race/%03d", k)
		w := winners[key]
		if len(w) != 1 {
			t.Errorf("%s: winners %v, want exactly one", key, w)
			continue
		}
		body, _, err := s.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get(%s) = %v", key, err)
		}
		if string(body) != w[0] {
			t.Errorf("Get(%s) = %q, want the winner %q", key, body, w[0])
		}
	}
	body, _, err := s.Get(ctx, "counter")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(body), strconv.Itoa(crossProcesses*crossKeys); got != want {
		t.Errorf("counter = %s, want %s (increments lost)", got, want)
	}
}

func crossProcessChild(t *testing.T, dir, id string) {
	ctx := context.Background()
	s, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := os.Getenv("CELLHOST_FILESTORE_CHILD_START")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("start file never appeared")
		}
	}
	for k := range crossKeys {
		key := fmt.Sprintf("race/%03d", k)
		_, err := s.Put(ctx, key, []byte(id), plugins.PutOptions{IfNoneMatch: true})
		switch {
		case err == nil:
			fmt.Printf("WON %s\n", key)
		case !errors.Is(err, plugins.ErrPreconditionFailed):
			t.Fatalf("Put(%s) = %v", key, err)
		}
		if err := storetest.Increment(ctx, s, "counter"); err != nil {
			t.Fatal(err)
		}
	}
}

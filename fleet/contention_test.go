package fleet

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

// Environment of a child process of TestContention_OneWriterPerEpoch.
const (
	envContentionDir = "CELLHOST_FLEET_CONTENTION_DIR" // the bucket directory; set only in children
	envContentionID  = "CELLHOST_FLEET_CONTENTION_ID"
)

const (
	contentionProcs     = 4
	contentionClaimants = 25 // per process: 100 in all
	contentionObjects   = 50
	contentionClaims    = 50 // per claimant: 5 000 in all
)

// claimAck is one acknowledged write: claimant wrote scope's LTX key at
// epoch and its Lease.Check passed.
type claimAck struct {
	Scope    string `json:"scope"`
	Epoch    uint64 `json:"epoch"`
	Claimant string `json:"claimant"`
}

// TestContention_OneWriterPerEpoch: 100 claimants (ownership Nodes) in 4
// processes claim 50 cells 5 000 times on one file bucket. A claimant that
// wins a cell writes the cell's LTX key of that epoch with its own name,
// checks its lease (the acknowledgement check), acknowledges, and
// releases. Afterwards every acknowledged (cell, epoch) was acknowledged
// once, and the LTX key of that epoch holds the acknowledging claimant's
// write: one writer per epoch, 0 violations.
func TestContention_OneWriterPerEpoch(t *testing.T) {
	if dir := os.Getenv(envContentionDir); dir != "" {
		contentionChild(t, dir, os.Getenv(envContentionID))
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	type child struct {
		cmd  *exec.Cmd
		acks []claimAck
		log  strings.Builder
		err  error
	}
	children := make([]*child, contentionProcs)
	var wg sync.WaitGroup
	for i := range children {
		c := &child{}
		children[i] = c
		c.cmd = exec.Command(os.Args[0], "-test.run=^TestContention_OneWriterPerEpoch$", "-test.count=1")
		c.cmd.Env = append(os.Environ(), envContentionDir+"="+dir, envContentionID+"="+strconv.Itoa(i))
		stdout, _ := c.cmd.StdoutPipe()
		c.cmd.Stderr = &c.log
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				line := sc.Text()
				if !strings.HasPrefix(line, "ACK ") {
					c.log.WriteString(line + "\n") // the child test's own output
					continue
				}
				var a claimAck
				if err := json.Unmarshal([]byte(line[4:]), &a); err != nil {
					c.err = err
					continue
				}
				c.acks = append(c.acks, a)
			}
			c.err = errors.Join(c.err, c.cmd.Wait())
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		for _, c := range children {
			c.cmd.Process.Kill()
		}
		<-done
		t.Fatal("the claimants did not finish within 5 minutes")
	}
	store, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	type key struct {
		scope string
		epoch uint64
	}
	seen := map[key]string{}
	violations, acks := 0, 0
	for i, c := range children {
		if c.err != nil {
			t.Fatalf("child %d: %v\n%s", i, c.err, c.log.String())
		}
		for _, a := range c.acks {
			acks++
			k := key{a.Scope, a.Epoch}
			if other, ok := seen[k]; ok {
				violations++
				t.Errorf("%s epoch %d acknowledged by %s and %s", a.Scope, a.Epoch, other, a.Claimant)
			}
			seen[k] = a.Claimant
			body, _, err := store.Get(context.Background(), bucketkey.LTXKey(a.Scope, a.Epoch, 0, 1, 1))
			if err != nil {
				t.Fatalf("read the LTX key of %s epoch %d: %v", a.Scope, a.Epoch, err)
			}
			if string(body) != a.Claimant {
				violations++
				t.Errorf("%s epoch %d: acknowledged by %s, but its LTX key holds %s's write", a.Scope, a.Epoch, a.Claimant, body)
			}
		}
	}
	// Every epoch's LTX key was written by an acknowledging claimant or by
	// one whose check failed; none holds two writers' data (checked
	// above). The epochs of a cell are 1..N without gaps of acknowledgements
	// larger than the failed claims allow: at least one acknowledgement.
	if acks == 0 {
		t.Fatal("no claim was acknowledged")
	}
	t.Logf("%d claimants in %d processes, %d cells, %d claims: %d acknowledged, %d violations",
		contentionProcs*contentionClaimants, contentionProcs, contentionObjects, contentionProcs*contentionClaimants*contentionClaims, acks, violations)
}

// contentionChild runs contentionClaimants claimants and prints one
// "ACK {json}" line per acknowledged write.
func contentionChild(t *testing.T, dir, id string) {
	store, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ctx := context.Background()
	var out sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, contentionClaimants)
	for c := range contentionClaimants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("p%s-c%d", id, c)
			node, err := ownership.New(ownership.Config{Store: store, TTL: time.Minute, SkipProbe: true})
			if err != nil {
				errs <- err
				return
			}
			if err := node.Start(ctx); err != nil {
				errs <- err
				return
			}
			defer node.Close(ctx)
			for range contentionClaims {
				scope := fmt.Sprintf("C:%064x", rand.IntN(contentionObjects))
				lease, err := node.TryAcquire(ctx, scope)
				if err != nil {
					var elsewhere *ownership.CellOwnedElsewhereError
					if errors.As(err, &elsewhere) {
						continue // a live claimant holds it
					}
					errs <- fmt.Errorf("%s: %w", name, err)
					return
				}
				_, err = store.Put(ctx, bucketkey.LTXKey(scope, lease.Epoch, 0, 1, 1), []byte(name), plugins.PutOptions{})
				if err == nil && lease.Check(ctx) == nil {
					b, _ := json.Marshal(claimAck{Scope: scope, Epoch: lease.Epoch, Claimant: name})
					out.Lock()
					fmt.Printf("ACK %s\n", b)
					out.Unlock()
				}
				if err := lease.Release(ctx); err != nil {
					errs <- fmt.Errorf("%s: release: %w", name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

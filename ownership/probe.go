package ownership

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// ProbeStep is one check of the storage probe.
type ProbeStep struct {
	Name string // what was done, e.g. "create again (If-None-Match: *)"
	Want string // "applied" or "rejected"
	Got  string // what the store did: "applied", "rejected (412)", "error: ..."
	OK   bool
}

// StoreFaultError means the store applied a conditional write it must
// reject: its conditional writes cannot be trusted, so no node may run on
// it. The store is at fault, not the network or the node.
type StoreFaultError struct {
	Key  string // the probe key
	Step string // the step's Name
}

func (e *StoreFaultError) Error() string {
	return fmt.Sprintf("the object store is at fault: it applied a conditional write it must reject (%s on %s); it does not provide the conditional writes the bucket protocol needs, so cellhost refuses to run on it", e.Step, e.Key)
}

// ProbeKey returns a fresh key for one probe run, "probe/cas-<unique>".
func ProbeKey() string {
	return bucketkey.ProbeKey(strconv.FormatInt(time.Now().UnixMilli(), 10) + "-" + randomHex(8))
}

// Probe runs the storage probe of bucket-protocol.md section 1 on a fresh
// key probe/cas-<unique>: create (must apply), create again (must be
// rejected), update with the returned ETag (must apply), update with the
// old ETag (must be rejected), then delete. It returns every step it ran
// and nil, a *StoreFaultError when the store applied a write it must
// reject, or an error naming the step that failed otherwise. It stops at
// the first failed step, then deletes the key (the last step, always run).
func Probe(ctx context.Context, store Store) ([]ProbeStep, error) {
	key := ProbeKey()
	var steps []ProbeStep
	// put runs one conditional write. A wantApplied write must succeed; a
	// !wantApplied write must fail with ErrPreconditionFailed.
	put := func(name string, wantApplied bool, body string, opts plugins.PutOptions) (string, error) {
		etag, err := store.Put(ctx, key, []byte(body), opts)
		st := ProbeStep{Name: name, Want: "rejected (412)"}
		if wantApplied {
			st.Want = "applied"
		}
		switch {
		case err == nil:
			st.Got = "applied"
		case errors.Is(err, plugins.ErrPreconditionFailed):
			st.Got = "rejected (412)"
		default:
			st.Got = "error: " + err.Error()
		}
		st.OK = st.Got == st.Want
		steps = append(steps, st)
		switch {
		case st.OK:
			return etag, nil
		case err == nil:
			return etag, &StoreFaultError{Key: key, Step: name}
		case wantApplied && errors.Is(err, plugins.ErrPreconditionFailed):
			return "", fmt.Errorf("storage probe: %s on %s: the store rejected a write it must apply: %w", name, key, err)
		}
		return "", fmt.Errorf("storage probe: %s on %s: %w", name, key, err)
	}

	err := func() error {
		etag1, err := put("create (If-None-Match: *)", true, "1", plugins.PutOptions{IfNoneMatch: true})
		if err != nil {
			return err
		}
		if _, err := put("create again (If-None-Match: *)", false, "2", plugins.PutOptions{IfNoneMatch: true}); err != nil {
			return err
		}
		etag2, err := put("update (If-Match: current etag)", true, "3", plugins.PutOptions{IfMatch: etag1})
		if err != nil {
			return err
		}
		if etag2 == etag1 {
			steps[len(steps)-1].OK = false
			steps[len(steps)-1].Got = "applied, but returned the same etag as the previous write"
			return &StoreFaultError{Key: key, Step: steps[len(steps)-1].Name}
		}
		_, err = put("update (If-Match: old etag)", false, "4", plugins.PutOptions{IfMatch: etag1})
		return err
	}()
	// Always delete: even a failed create may have landed.
	derr := deleteKey(ctx, store, key, "")
	st := ProbeStep{Name: "delete", Want: "applied", Got: "applied", OK: derr == nil}
	if derr != nil {
		st.Got = "error: " + derr.Error()
	}
	steps = append(steps, st)
	if err != nil {
		return steps, err
	}
	if derr != nil {
		return steps, fmt.Errorf("storage probe: delete %s: %w", key, derr)
	}
	return steps, nil
}

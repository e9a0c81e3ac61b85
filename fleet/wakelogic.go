package fleet

// Pure decisions of the wake index and the waker role (bucket protocol,
// section 6), as celld's logic/wake.rs: no I/O, table-tested. The effects
// are in wake.go and waker.go.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/cellhost/cellhost/internal/compactjson"

	"github.com/cellhost/cellhost/internal/bucketkey"
)

// DefaultWakePoll is wakePollMs: how often every node reads the wake index.
const DefaultWakePoll = 30_000 // ms

// WakeEntryBody is the body of a wake entry,
// {"cell":"<scope>","due_ms":<ms>,"epoch":<epoch>}.
type WakeEntryBody struct {
	Cell  string
	DueMS int64
	Epoch uint64
}

// Key returns the entry's key, wake/entries/<minute of DueMS>/<Cell>.
func (b WakeEntryBody) Key() string { return bucketkey.WakeEntryKey(b.DueMS, b.Cell) }

// RetiredKey returns the key that retires the entry.
func (b WakeEntryBody) RetiredKey() string { return bucketkey.WakeRetiredKey(b.DueMS, b.Cell) }

// Encode returns the compact JSON body, members in the order of section 6.
func (b WakeEntryBody) Encode() []byte {
	out := make([]byte, 0, 48+len(b.Cell))
	out = append(out, `{"cell":`...)
	out = compactjson.AppendString(out, b.Cell)
	out = append(out, `,"due_ms":`...)
	out = strconv.AppendInt(out, b.DueMS, 10)
	out = append(out, `,"epoch":`...)
	out = strconv.AppendUint(out, b.Epoch, 10)
	return append(out, '}')
}

// DecodeWakeEntry decodes the wake entry stored at key: a JSON object with
// "cell" (the scope the key names), "due_ms" (an integer in the key's
// minute) and "epoch" (an unsigned integer). Unknown members are ignored (a
// later writer may add some); anything else is an error.
func DecodeWakeEntry(key string, data []byte) (WakeEntryBody, error) {
	k, err := bucketkey.ParseWakeKey(key)
	if err != nil {
		return WakeEntryBody{}, err
	}
	var raw struct {
		Cell  *string      `json:"cell"`
		DueMS *json.Number `json:"due_ms"`
		Epoch *json.Number `json:"epoch"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return WakeEntryBody{}, fmt.Errorf("wake entry %s: %w", key, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return WakeEntryBody{}, fmt.Errorf("wake entry %s: data after the JSON object", key)
	}
	if raw.Cell == nil || raw.DueMS == nil || raw.Epoch == nil {
		return WakeEntryBody{}, fmt.Errorf("wake entry %s: want cell, due_ms and epoch", key)
	}
	due, err1 := strconv.ParseInt(raw.DueMS.String(), 10, 64)
	epoch, err2 := strconv.ParseUint(raw.Epoch.String(), 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return WakeEntryBody{}, fmt.Errorf("wake entry %s: due_ms and epoch must be integers: %w", key, err)
	}
	b := WakeEntryBody{Cell: *raw.Cell, DueMS: due, Epoch: epoch}
	if b.Cell != k.Scope || bucketkey.MinuteMS(b.DueMS) != k.MinuteMS {
		return WakeEntryBody{}, fmt.Errorf("wake entry %s: body %s does not match the key", key, b.Encode())
	}
	return b, nil
}

// WakeOpKind is what one step of a wake index change does.
type WakeOpKind int

const (
	PutEntry   WakeOpKind = iota // PUT the new entry
	PutRetired                   // PUT the retirement of the old entry
	DeleteOld                    // DELETE the old entry
)

// WakeOp is one write of a wake index change.
type WakeOp struct {
	Kind WakeOpKind
	Key  string
	Body []byte
}

// WakeTransition returns the writes that move a cell's wake index from the
// entries known in the bucket (cur) to the committed alarm (next; nil: no
// alarm), in order: the new entry is put first, then each other entry is
// retired (written under wake/retired/, then deleted), so that an armed
// alarm never goes a moment without an entry. An entry already holding
// next's key and body is not written again; one holding its key with
// another body is overwritten in place.
func WakeTransition(cur []WakeEntryBody, next *WakeEntryBody) []WakeOp {
	var ops []WakeOp
	if next != nil && !slices.Contains(cur, *next) {
		ops = append(ops, WakeOp{PutEntry, next.Key(), next.Encode()})
	}
	for _, old := range cur {
		if next != nil && old.Key() == next.Key() {
			continue
		}
		ops = append(ops,
			WakeOp{PutRetired, old.RetiredKey(), old.Encode()},
			WakeOp{DeleteOld, old.Key(), nil})
	}
	return ops
}

// WakeDue reports whether a node should activate the cell of an entry now:
// its alarm is due before the next poll (nowMS + pollMS), so that the cell's
// own timer fires it on time.
func WakeDue(e WakeEntryBody, nowMS, pollMS int64) bool { return e.DueMS <= nowMS+pollMS }

// RetiredKeepMS is how long a retirement is kept after the minute of the
// entry it retired: the index lists retirements beside entries for that
// long, then the waker deletes them (the protocol names no deleter, and
// without one wake/retired/ would grow by a key per alarm change).
const RetiredKeepMS = 3_600_000

// RetiredExpired reports whether the retirement k may be deleted at nowMS.
func RetiredExpired(k bucketkey.WakeEntry, nowMS int64) bool {
	return k.Retired && k.MinuteMS+60_000+RetiredKeepMS <= nowMS
}

// WakerRecord is wake/waker.json, {"node":"<node>","expires_ms":<ms>}.
type WakerRecord struct {
	Node      string
	ExpiresMS int64
}

// Encode returns the record byte for byte as celld reads it: compact, node
// then expires_ms, no trailing newline.
func (r WakerRecord) Encode() []byte {
	out := make([]byte, 0, 40+len(r.Node))
	out = append(out, `{"node":`...)
	out = compactjson.AppendString(out, r.Node)
	out = append(out, `,"expires_ms":`...)
	out = strconv.AppendInt(out, r.ExpiresMS, 10)
	return append(out, '}')
}

// DecodeWakerRecord decodes wake/waker.json: an object with a string "node"
// and an integer "expires_ms"; unknown members are ignored.
func DecodeWakerRecord(data []byte) (WakerRecord, error) {
	var raw struct {
		Node      *string      `json:"node"`
		ExpiresMS *json.Number `json:"expires_ms"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return WakerRecord{}, fmt.Errorf("%s: %w", bucketkey.WakerKey, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return WakerRecord{}, fmt.Errorf("%s: data after the JSON object", bucketkey.WakerKey)
	}
	if raw.Node == nil || raw.ExpiresMS == nil {
		return WakerRecord{}, fmt.Errorf("%s: want node and expires_ms", bucketkey.WakerKey)
	}
	ms, err := strconv.ParseInt(raw.ExpiresMS.String(), 10, 64)
	if err != nil {
		return WakerRecord{}, fmt.Errorf("%s: expires_ms: %w", bucketkey.WakerKey, err)
	}
	return WakerRecord{Node: *raw.Node, ExpiresMS: ms}, nil
}

// WakerTTLTicks is the waker lease's TTL in waker ticks.
const WakerTTLTicks = 3

// WakerClaim is how a node writes wake/waker.json, if at all.
type WakerClaim int

const (
	NoClaim     WakerClaim = iota // another node holds a live waker lease
	ClaimCreate                   // absent: create with If-None-Match: *
	ClaimCAS                      // mine, or expired (or unreadable): overwrite with If-Match
)

// DecideWakerClaim decides the claim of node on the waker role at nowMS,
// given the current record (present false: the key is absent; ok false:
// present but undecodable, which is taken over like an expired one).
func DecideWakerClaim(cur WakerRecord, present, ok bool, node string, nowMS int64) WakerClaim {
	switch {
	case !present:
		return ClaimCreate
	case !ok, cur.Node == node, cur.ExpiresMS <= nowMS:
		return ClaimCAS
	}
	return NoClaim
}

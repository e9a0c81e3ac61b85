package fleet

// Pure decisions of dead-node garbage collection (bucket protocol, section
// 8; seed 003), named as in celld's logic/dead_node_reconciliation.rs so
// that a reader of the seed finds them. The effects are in gc.go.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cellhost/cellhost/internal/compactjson"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
)

// MaxGCDeletesInFlight bounds the concurrent marker DELETEs of one pass.
const MaxGCDeletesInFlight = 64

// maxBackoffShift caps retry_delay_ms at 64 ticks.
const maxBackoffShift = 6

// NodeRecordIsDead is node_record_is_dead: the record stored at key is dead
// iff the node the key names equals the record's node and its expires_ms is
// at or before nowMS (the spec's and celld's <=; seed 003's text has <).
func NodeRecordIsDead(key string, rec ownership.NodeRecord, nowMS int64) bool {
	node, err := bucketkey.ParseNodeKey(key)
	if err != nil || node != rec.Node {
		return false
	}
	return nowMS >= 0 && rec.ExpiresMS <= uint64(nowMS)
}

// ParseMarkerKey is parse_marker_key: the node and cell of a node-cells
// marker, ignoring its generation; ok is false for any other key.
func ParseMarkerKey(key string) (node, cell string, ok bool) {
	m, err := bucketkey.ParseMarkerKey(key)
	if err != nil {
		return "", "", false
	}
	return m.Node, m.Scope, true
}

// RetryDelayMS is retry_delay_ms: how long a node whose sweep failed
// failures times in a row (failures >= 1) waits before the next attempt:
// 1x, 2x, 4x ... 64x the tick.
func RetryDelayMS(tickMS int64, failures int) int64 {
	if failures < 1 {
		return 0
	}
	return tickMS << min(failures-1, maxBackoffShift)
}

// CellsIndexedByNodes is cells_indexed_by_nodes: the marker keys among keys
// that belong to one of nodes (any generation), by node. Other keys are
// left out.
func CellsIndexedByNodes(keys []string, nodes map[string]bool) map[string][]string {
	out := make(map[string][]string)
	for _, k := range keys {
		if node, _, ok := ParseMarkerKey(k); ok && nodes[node] {
			out[node] = append(out[node], k)
		}
	}
	return out
}

// GCAttempt reports whether a dead node is worked on in the pass at nowMS:
// not swept yet, and out of back-off (nextTryMS, 0 when it never failed).
func GCAttempt(swept bool, nextTryMS, nowMS int64) bool {
	return !swept && nowMS >= nextTryMS
}

// Tombstone returns the node record data with expires_ms set to 0 and every
// other member (celld's too) kept, in order, for the first step of the
// two-step fence.
func Tombstone(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("tombstone: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("tombstone: not a JSON object")
	}
	out := []byte{'{'}
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("tombstone: %w", err)
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("tombstone: %w", err)
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = compactjson.AppendString(out, name)
		out = append(out, ':')
		if name == "expires_ms" {
			found = true
			raw = json.RawMessage("0")
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			return nil, fmt.Errorf("tombstone: %w", err)
		}
		out = append(out, compact.Bytes()...)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("tombstone: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("tombstone: data after the JSON object")
	}
	if !found {
		return nil, errors.New("tombstone: no expires_ms")
	}
	return append(out, '}'), nil
}

// StaleMarkers returns the markers among keys (node-cells/ keys listed
// before current was read) whose generation is over: current maps a node
// to the ownership_index_generation of its record as read after the
// listing, "" when it has no record. A node's generation changes only
// forward (a rejoin or a restart takes a new one) and its record is
// written before any marker of a generation, so a marker listed earlier
// whose generation is not the record's current one, or whose node has no
// record any more, can never be written again: it is garbage that
// dead-node GC, which starts from nodes/, never reaches (each fence and
// rejoin leaves one generation of them). Markers of nodes missing from
// current (records not read, undecodable) and of current generations are
// kept.
func StaleMarkers(keys []string, current map[string]string) []string {
	var stale []string
	for _, k := range keys {
		m, err := bucketkey.ParseMarkerKey(k)
		if err != nil {
			continue // not ours to judge
		}
		gen, ok := current[m.Node]
		if !ok || (gen != "" && gen == m.Generation) {
			continue
		}
		stale = append(stale, k)
	}
	return stale
}

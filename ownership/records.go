package ownership

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/cellhost/cellhost/internal/compactjson"

	"github.com/cellhost/cellhost/internal/bucketkey"
)

const (
	nodeIDPrefix    = "node_"
	nodeIDHexLen    = 32
	generationLen   = 64
	probeKeyHexLen  = 64
	maxRecordLen    = 64 << 10
	peerProtocol    = 2
	invalidAddrHost = ".cellhost.invalid:9"
)

// DefaultAddr is the addr a node record carries when no peer address is
// configured: a name that never resolves, so that a celld node routes to the
// live owner, fails and refuses instead of treating it as dead.
func DefaultAddr(node string) string { return node + invalidAddrHost }

// ValidateNodeID checks a node id: "node_" and 32 lowercase hex digits. The
// error wraps ErrInvalidNodeID.
func ValidateNodeID(node string) error {
	hexPart, ok := strings.CutPrefix(node, nodeIDPrefix)
	if !ok || !isLowerHex(hexPart, nodeIDHexLen) {
		return fmt.Errorf("%w: %q (want %s and %d lowercase hex digits)", ErrInvalidNodeID, node, nodeIDPrefix, nodeIDHexLen)
	}
	return nil
}

// checkNodeRef checks a node id found in a record. cellhost's own ids are
// "node_<32 hex>" (ValidateNodeID), but a bucket shared with celld holds
// any CELLD_NODE string (seed 003's "node-1234"): every id that can be a
// key segment is accepted. The error wraps ErrInvalidNodeID.
func checkNodeRef(node string) error {
	if err := bucketkey.CheckSegment(node); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidNodeID, err)
	}
	return nil
}

// NewNodeID returns a random node id, "node_<32 hex>".
func NewNodeID() string { return nodeIDPrefix + randomHex(nodeIDHexLen/2) }

// NewGeneration returns a random ownership index generation (64 hex).
func NewGeneration() string { return randomHex(generationLen / 2) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// splitScope splits "<Class>:<id>" into its class and id; ok is false
// when scope has no ":".
func splitScope(scope string) (class, id string, ok bool) {
	i := strings.LastIndexByte(scope, ':')
	if i < 0 {
		return scope, "", false
	}
	return scope[:i], scope[i+1:], true
}

// OwnRecord is a cell's ownership record, cells/<scope>/own.json. Node is
// "" when the cell was released.
type OwnRecord struct {
	Node  string
	Epoch uint64
}

// Encode returns the record's compact JSON, {"node":"...","epoch":N}.
func (r OwnRecord) Encode() []byte {
	b := make([]byte, 0, 64)
	b = append(b, `{"node":`...)
	b = compactjson.AppendString(b, r.Node)
	b = append(b, `,"epoch":`...)
	b = strconv.AppendUint(b, r.Epoch, 10)
	b = append(b, '}')
	return b
}

// DecodeOwnRecord decodes the own.json stored at key. It is strict: one
// JSON object with exactly the members "node" (a node id, see checkNodeRef,
// or "") and "epoch"
// (an integer >= 1), nothing after it. The error is a *RecordError naming
// key.
func DecodeOwnRecord(key string, data []byte) (OwnRecord, error) {
	var r OwnRecord
	err := decodeRecord(data, func(dec *json.Decoder) error {
		return decodeObject(dec, []field{
			{"node", func(raw json.RawMessage) error { return decodeString(raw, &r.Node) }},
			{"epoch", func(raw json.RawMessage) error { return decodeUint(raw, &r.Epoch) }},
		})
	})
	if err == nil && r.Node != "" {
		err = checkNodeRef(r.Node)
	}
	if err == nil && r.Epoch == 0 {
		err = errors.New("epoch 0 (epochs start at 1)")
	}
	if err != nil {
		return OwnRecord{}, &RecordError{Key: key, Err: err}
	}
	return r, nil
}

// NodeRecord is a node lease, nodes/<node>.json (bucket-protocol.md
// section 4). Its JSON carries every field celld decodes, in this order.
type NodeRecord struct {
	Node                     string `json:"node"`
	ExpiresMS                uint64 `json:"expires_ms"`
	Addr                     string `json:"addr"`
	ProbePublicKey           string `json:"probe_public_key"`
	PeerProtocol             uint64 `json:"peer_protocol"`
	OwnershipIndexGeneration string `json:"ownership_index_generation"`
	Load                     Load   `json:"load"`
}

// Load is the load sample of a node record. cellhost always writes
// UnattractiveLoad.
type Load struct {
	SampledMS      uint64  `json:"sampled_ms"`
	ResidentCells  uint64  `json:"resident_cells"`
	HostWebsockets uint64  `json:"host_websockets"`
	RSSBytes       uint64  `json:"rss_bytes"`
	InUseBytes     *uint64 `json:"in_use_bytes"` // null when unknown
	CPUPercentX100 uint64  `json:"cpu_percent_x100"`
	OpenFDs        uint64  `json:"open_fds"`
	FDLimit        uint64  `json:"fd_limit"`
	Pressured      bool    `json:"pressured"`
	ShedCells      uint64  `json:"shed_cells"`
	Restoring      uint64  `json:"restoring"`
}

// UnattractiveLoad is the load a cellhost node advertises: pressured, never
// sampled, so that celld neither hands cells to it nor recruits it.
func UnattractiveLoad() Load {
	return Load{RSSBytes: 1, Pressured: true}
}

// Live reports whether the lease stored at key is live at now (the
// reader's wall clock): expires_ms > now, addr non-empty, and node equal to
// the node the key names.
func (r NodeRecord) Live(key string, now time.Time) bool {
	node, err := bucketkey.ParseNodeKey(key)
	ms := now.UnixMilli()
	return err == nil && r.Node == node && r.Addr != "" && (ms < 0 || r.ExpiresMS > uint64(ms))
}

// Encode returns the record's compact JSON, fields in the order of
// bucket-protocol.md section 4, no trailing newline.
func (r NodeRecord) Encode() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		panic("ownership: encode node record: " + err.Error()) // impossible: plain fields
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// DecodeNodeRecord decodes the node lease stored at key: one JSON object
// with every member of section 4 (and of its "load"), each once and of its
// type (only in_use_bytes may be null), node any id that can be a key
// segment (celld accepts any CELLD_NODE string), probe_public_key and
// ownership_index_generation 64 lowercase hex digits, nothing after it.
// Members it does not know are skipped: celld adds "log" once its fleet log
// is open. node need not match the key (such a record is never live). The
// error is a *RecordError naming key.
func DecodeNodeRecord(key string, data []byte) (NodeRecord, error) {
	var r NodeRecord
	l := &r.Load
	err := decodeRecord(data, func(dec *json.Decoder) error {
		return decodeObjectLenient(dec, []field{
			{"node", func(raw json.RawMessage) error { return decodeString(raw, &r.Node) }},
			{"expires_ms", func(raw json.RawMessage) error { return decodeUint(raw, &r.ExpiresMS) }},
			{"addr", func(raw json.RawMessage) error { return decodeString(raw, &r.Addr) }},
			{"probe_public_key", func(raw json.RawMessage) error { return decodeString(raw, &r.ProbePublicKey) }},
			{"peer_protocol", func(raw json.RawMessage) error { return decodeUint(raw, &r.PeerProtocol) }},
			{"ownership_index_generation", func(raw json.RawMessage) error { return decodeString(raw, &r.OwnershipIndexGeneration) }},
			{"load", func(raw json.RawMessage) error {
				dec := json.NewDecoder(bytes.NewReader(raw))
				return decodeObjectLenient(dec, []field{
					{"sampled_ms", func(raw json.RawMessage) error { return decodeUint(raw, &l.SampledMS) }},
					{"resident_cells", func(raw json.RawMessage) error { return decodeUint(raw, &l.ResidentCells) }},
					{"host_websockets", func(raw json.RawMessage) error { return decodeUint(raw, &l.HostWebsockets) }},
					{"rss_bytes", func(raw json.RawMessage) error { return decodeUint(raw, &l.RSSBytes) }},
					{"in_use_bytes", func(raw json.RawMessage) error {
						if string(raw) == "null" {
							l.InUseBytes = nil
							return nil
						}
						var v uint64
						if err := decodeUint(raw, &v); err != nil {
							return err
						}
						l.InUseBytes = &v
						return nil
					}},
					{"cpu_percent_x100", func(raw json.RawMessage) error { return decodeUint(raw, &l.CPUPercentX100) }},
					{"open_fds", func(raw json.RawMessage) error { return decodeUint(raw, &l.OpenFDs) }},
					{"fd_limit", func(raw json.RawMessage) error { return decodeUint(raw, &l.FDLimit) }},
					{"pressured", func(raw json.RawMessage) error { return decodeBool(raw, &l.Pressured) }},
					{"shed_cells", func(raw json.RawMessage) error { return decodeUint(raw, &l.ShedCells) }},
					{"restoring", func(raw json.RawMessage) error { return decodeUint(raw, &l.Restoring) }},
				})
			}},
		})
	})
	switch {
	case err != nil:
	case checkNodeRef(r.Node) != nil:
		err = fmt.Errorf("node: %w", checkNodeRef(r.Node))
	case !isLowerHex(r.ProbePublicKey, probeKeyHexLen):
		err = fmt.Errorf("probe_public_key %q: want %d lowercase hex digits", r.ProbePublicKey, probeKeyHexLen)
	case !isLowerHex(r.OwnershipIndexGeneration, generationLen):
		err = fmt.Errorf("ownership_index_generation %q: want %d lowercase hex digits", r.OwnershipIndexGeneration, generationLen)
	}
	if err != nil {
		return NodeRecord{}, &RecordError{Key: key, Err: err}
	}
	return r, nil
}

// Strict JSON decoding: encoding/json alone accepts unknown, duplicate and
// case-folded member names and turns null into "unchanged".

type field struct {
	name string
	set  func(json.RawMessage) error
}

func decodeRecord(data []byte, decode func(*json.Decoder) error) error {
	if len(data) > maxRecordLen {
		return fmt.Errorf("%d bytes, more than %d", len(data), maxRecordLen)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := decode(dec); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the JSON object")
	}
	return nil
}

// decodeObject reads one JSON object from dec whose members are exactly
// fields, each once.
func decodeObject(dec *json.Decoder, fields []field) error { return decodeMembers(dec, fields, false) }

// decodeObjectLenient is decodeObject that skips members not in fields
// (a later or another writer's additions, such as celld's "log").
func decodeObjectLenient(dec *json.Decoder, fields []field) error {
	return decodeMembers(dec, fields, true)
}

func decodeMembers(dec *json.Decoder, fields []field, skipUnknown bool) error {
	tok, err := dec.Token()
	if err != nil {
		return syntaxError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want a JSON object, got %s", describeToken(tok))
	}
	seen := make([]bool, len(fields))
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(err)
		}
		name, _ := tok.(string)
		i := 0
		for i < len(fields) && fields[i].name != name {
			i++
		}
		if i == len(fields) {
			if !skipUnknown {
				return fmt.Errorf("unknown member %q", name)
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return syntaxError(err)
			}
			continue
		}
		if seen[i] {
			return fmt.Errorf("duplicate member %q", name)
		}
		seen[i] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntaxError(err)
		}
		if err := fields[i].set(raw); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return syntaxError(err)
	}
	for i, f := range fields {
		if !seen[i] {
			return fmt.Errorf("missing member %q", f.name)
		}
	}
	return nil
}

func syntaxError(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("unexpected end of JSON")
	}
	return fmt.Errorf("malformed JSON: %w", err)
}

func describeToken(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return fmt.Sprintf("%q", tok)
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

func decodeString(raw json.RawMessage, v *string) error {
	if len(raw) == 0 || raw[0] != '"' {
		return fmt.Errorf("want a string, got %s", raw)
	}
	return json.Unmarshal(raw, v)
}

func decodeUint(raw json.RawMessage, v *uint64) error {
	s := string(raw)
	if s == "" || s[0] < '0' || s[0] > '9' || (len(s) > 1 && s[0] == '0') {
		return fmt.Errorf("want a non-negative integer, got %s", raw)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return fmt.Errorf("want a 64-bit unsigned integer, got %s", raw)
	}
	*v = n
	return nil
}

func decodeBool(raw json.RawMessage, v *bool) error {
	switch string(raw) {
	case "true":
		*v = true
	case "false":
		*v = false
	default:
		return fmt.Errorf("want true or false, got %s", raw)
	}
	return nil
}

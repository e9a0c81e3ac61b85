// Package bucketkey is the key map of the fleet bucket
// (../shared/spec/bucket-protocol.md section 2): one pure function that
// formats each key and one strict parser that reads it back, so that
// Parse(k) succeeding implies Format(parsed) == k. storage, ownership and
// fleet import it; nothing else spells a bucket key.
//
//	nodes/<node>.json                                   node lease
//	cells/<scope>/own.json                              ownership record
//	cells/<scope>/ltx/e<epoch>/<level>/<min>-<max>.ltx  the LTX log
//	node-cells/<node>/<generation>/<scope>              node-cells marker
//	wake/entries/<YYYY-MM-DDTHH:MM>/<scope>             wake entry
//	wake/retired/<YYYY-MM-DDTHH:MM>/<scope>             retired wake entry
//	wake/waker.json                                     the waker role
//	r2/<bucket>/<key>                                   R2 objects
//	cellhost/r2-uploads/<bucket>/<upload>/upload        R2 multipart upload record
//	cellhost/kv/<namespace>/<base64url(key)>            KV namespace entry
//	cellhost/r2-uploads/<bucket>/<upload>/part-<nnnnn>  R2 multipart upload part
//	probe/cas-<unique>                                  the storage probe
package bucketkey

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Prefixes and fixed keys.
const (
	NodesPrefix       = "nodes/"
	CellsPrefix       = "cells/"
	MarkersPrefix     = "node-cells/"
	WakePrefix        = "wake/"
	WakeEntriesPrefix = "wake/entries/"
	WakeRetiredPrefix = "wake/retired/"
	// WakerKey is the key of the elected waker's record.
	WakerKey    = "wake/waker.json"
	R2Prefix    = "r2/"
	ProbePrefix = "probe/cas-"

	// CellhostPrefix holds the keys of cellhost's own that celld does not
	// know (outside Reserved).
	CellhostPrefix = "cellhost/"
	// PeerSecretKey is the fleet secret that signs peer traffic.
	PeerSecretKey = CellhostPrefix + "peer-secret.json"
	// FleetCAKey is the fleet's CA (certificate and key) that issues node
	// certificates for mutual TLS on the internal listeners
	// (serve --internal-tls-fleet-ca).
	FleetCAKey = CellhostPrefix + "fleet-ca.json"
	// DeploymentsPrefix holds one object per deployment,
	// cellhost/deployments/<id>.json, newest = highest id.
	DeploymentsPrefix = CellhostPrefix + "deployments/"

	nodeSuffix = ".json"
	ownSuffix  = "/own.json"
	ltxDir     = "/ltx/"
)

// Reserved lists the prefixes celld writes and cellhost never does.
var Reserved = []string{"fleet/", "deploy/", "deploy-blobs/", "log/", "telemetry/"}

var (
	// ErrInvalidKey is wrapped by every error of a Parse function.
	ErrInvalidKey = errors.New("invalid bucket key")
	// ErrInvalidScope is wrapped by the errors of CheckScope.
	ErrInvalidScope = errors.New("invalid cell scope")
	// ErrInvalidSegment is wrapped by the errors of CheckSegment.
	ErrInvalidSegment = errors.New("invalid key segment")
)

// MaxScopeLen is the longest scope in bytes (bucket protocol, section 3).
const MaxScopeLen = 255

// MaxSegmentLen is the longest node id, generation or R2 bucket name that
// a key may carry.
const MaxSegmentLen = 255

// CheckScope reports whether scope can name a cell in bucket keys: 1 to
// MaxScopeLen bytes of [A-Za-z0-9_.:$-], neither "." nor "..". The error
// wraps ErrInvalidScope.
func CheckScope(scope string) error {
	switch {
	case scope == "":
		return fmt.Errorf("%w: empty", ErrInvalidScope)
	case len(scope) > MaxScopeLen:
		return fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidScope, len(scope), MaxScopeLen)
	case scope == "." || scope == "..":
		return fmt.Errorf("%w: %q", ErrInvalidScope, scope)
	}
	for i := 0; i < len(scope); i++ {
		if !scopeByte(scope[i]) {
			return fmt.Errorf("%w: %q has byte %q at %d (allowed: A-Z a-z 0-9 _ . : $ -)", ErrInvalidScope, scope, scope[i], i)
		}
	}
	return nil
}

func scopeByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("_.:$-", c) >= 0
}

// CheckSegment reports whether s can be one segment of a key (a node id, a
// marker generation, an R2 bucket name): 1 to MaxSegmentLen bytes, no "/",
// no control byte, valid UTF-8, neither "." nor "..". Node ids are not restricted
// further: celld accepts any CELLD_NODE string (seed 003 uses "node-1234").
// The error wraps ErrInvalidSegment.
func CheckSegment(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("%w: empty", ErrInvalidSegment)
	case len(s) > MaxSegmentLen:
		return fmt.Errorf("%w: %d bytes, more than %d", ErrInvalidSegment, len(s), MaxSegmentLen)
	case s == "." || s == "..":
		return fmt.Errorf("%w: %q", ErrInvalidSegment, s)
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: %q is not valid UTF-8", ErrInvalidSegment, s)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '/' || c < 0x20 || c == 0x7f {
			return fmt.Errorf("%w: %q has byte %q at %d", ErrInvalidSegment, s, c, i)
		}
	}
	return nil
}

func invalid(key, why string) error {
	return fmt.Errorf("%w %q: %s", ErrInvalidKey, key, why)
}

// NodeKey returns the key of a node's lease record, "nodes/<node>.json".
func NodeKey(node string) string { return NodesPrefix + node + nodeSuffix }

// ParseNodeKey returns the node a lease key names. It accepts exactly the
// keys NodeKey returns for a node that passes CheckSegment.
func ParseNodeKey(key string) (string, error) {
	rest, ok := strings.CutPrefix(key, NodesPrefix)
	if !ok {
		return "", invalid(key, `does not start with "nodes/"`)
	}
	node, ok := strings.CutSuffix(rest, nodeSuffix)
	if !ok {
		return "", invalid(key, `does not end with ".json"`)
	}
	if err := CheckSegment(node); err != nil {
		return "", invalid(key, err.Error())
	}
	return node, nil
}

// OwnKey returns the key of a cell's ownership record,
// "cells/<scope>/own.json".
func OwnKey(scope string) string { return CellsPrefix + scope + ownSuffix }

// ParseOwnKey returns the scope an ownership record key names. It accepts
// exactly the keys OwnKey returns for a valid scope.
func ParseOwnKey(key string) (string, error) {
	rest, ok := strings.CutPrefix(key, CellsPrefix)
	if !ok {
		return "", invalid(key, `does not start with "cells/"`)
	}
	scope, ok := strings.CutSuffix(rest, ownSuffix)
	if !ok {
		return "", invalid(key, `does not end with "/own.json"`)
	}
	if err := CheckScope(scope); err != nil {
		return "", invalid(key, err.Error())
	}
	return scope, nil
}

// Marker is a node-cells marker, "node-cells/<node>/<generation>/<scope>":
// node held scope during the process generation generation.
type Marker struct {
	Node       string
	Generation string
	Scope      string
}

// String returns the marker's key (MarkerKey).
func (m Marker) String() string { return MarkerKey(m.Node, m.Generation, m.Scope) }

// MarkerKey returns the key of a node-cells marker,
// "node-cells/<node>/<generation>/<scope>".
func MarkerKey(node, generation, scope string) string {
	return MarkersPrefix + node + "/" + generation + "/" + scope
}

// NodeMarkersPrefix returns the prefix of every marker of node, any
// generation: "node-cells/<node>/".
func NodeMarkersPrefix(node string) string { return MarkersPrefix + node + "/" }

// ParseMarkerKey parses a node-cells marker key. It accepts exactly the keys
// MarkerKey returns for a node and a generation that pass CheckSegment and
// a valid scope. (celld's parse_marker_key ignores the generation; the
// dead-node GC does too, but the key keeps it.)
func ParseMarkerKey(key string) (Marker, error) {
	rest, ok := strings.CutPrefix(key, MarkersPrefix)
	if !ok {
		return Marker{}, invalid(key, `does not start with "node-cells/"`)
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return Marker{}, invalid(key, "want node-cells/<node>/<generation>/<scope>")
	}
	m := Marker{Node: parts[0], Generation: parts[1], Scope: parts[2]}
	if err := CheckSegment(m.Node); err != nil {
		return Marker{}, invalid(key, "node: "+err.Error())
	}
	if err := CheckSegment(m.Generation); err != nil {
		return Marker{}, invalid(key, "generation: "+err.Error())
	}
	if err := CheckScope(m.Scope); err != nil {
		return Marker{}, invalid(key, err.Error())
	}
	return m, nil
}

// DeploymentKey is where deployment id lives (fleet: cellhost deploy).
func DeploymentKey(id string) string { return DeploymentsPrefix + id + ".json" }

// R2Key returns the key of an object of the R2 binding: "r2/<bucket>/<key>".
func R2Key(bucket, key string) string { return R2Prefix + bucket + "/" + key }

// R2BucketPrefix returns the prefix of every object of an R2 bucket,
// "r2/<bucket>/".
func R2BucketPrefix(bucket string) string { return R2Prefix + bucket + "/" }

// ParseR2Key returns the R2 bucket and object key a key names. It accepts
// exactly the keys R2Key returns for a bucket that passes CheckSegment and
// a non-empty UTF-8 object key (which may contain "/").
func ParseR2Key(key string) (bucket, object string, err error) {
	rest, ok := strings.CutPrefix(key, R2Prefix)
	if !ok {
		return "", "", invalid(key, `does not start with "r2/"`)
	}
	bucket, object, ok = strings.Cut(rest, "/")
	if !ok || object == "" || !utf8.ValidString(object) {
		return "", "", invalid(key, "want r2/<bucket>/<key> (key non-empty UTF-8)")
	}
	if err := CheckSegment(bucket); err != nil {
		return "", "", invalid(key, "bucket: "+err.Error())
	}
	return bucket, object, nil
}

// R2UploadsPrefix holds the multipart uploads of the R2 binding (cellhost's
// own: celld has no R2).
const R2UploadsPrefix = CellhostPrefix + "r2-uploads/"

// R2UploadDir returns the prefix of the keys of one multipart upload,
// "cellhost/r2-uploads/<bucket>/<upload>/".
func R2UploadDir(bucket, upload string) string { return R2UploadsPrefix + bucket + "/" + upload + "/" }

// R2UploadKey returns the key of a multipart upload's record.
func R2UploadKey(bucket, upload string) string { return R2UploadDir(bucket, upload) + "upload" }

// R2PartKey returns the key of part n (1 to 10000) of a multipart upload,
// "part-" and n in five digits, so that parts list in order.
func R2PartKey(bucket, upload string, n int) string {
	return fmt.Sprintf("%spart-%05d", R2UploadDir(bucket, upload), n)
}

// ParseR2PartKey returns the bucket, upload and part number a part key
// names; it accepts exactly the keys R2PartKey returns for segments that
// pass CheckSegment and n in 1..10000.
func ParseR2PartKey(key string) (bucket, upload string, n int, err error) {
	rest, ok := strings.CutPrefix(key, R2UploadsPrefix)
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 3 || len(parts[2]) != len("part-00000") || !strings.HasPrefix(parts[2], "part-") {
		return "", "", 0, invalid(key, "want "+R2UploadsPrefix+"<bucket>/<upload>/part-<nnnnn>")
	}
	for _, c := range parts[2][len("part-"):] {
		if c < '0' || c > '9' {
			return "", "", 0, invalid(key, "part number: not 5 digits")
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > 10000 {
		return "", "", 0, invalid(key, "part number out of 1..10000")
	}
	for _, seg := range parts[:2] {
		if err := CheckSegment(seg); err != nil {
			return "", "", 0, invalid(key, err.Error())
		}
	}
	return parts[0], parts[1], n, nil
}

// KVPrefix holds the KV namespaces (cellhost's own: celld has no KV).
const KVPrefix = CellhostPrefix + "kv/"

// KVNamespacePrefix returns the prefix of one namespace's entries,
// "cellhost/kv/<namespace>/".
func KVNamespacePrefix(ns string) string { return KVPrefix + ns + "/" }

// KVKey returns the key of entry key of namespace ns: the key in unpadded
// base64url, so that any KV key (up to 512 bytes, any characters) is a
// valid store key.
func KVKey(ns, key string) string {
	return KVNamespacePrefix(ns) + base64.RawURLEncoding.EncodeToString([]byte(key))
}

// ParseKVKey returns the namespace and KV key a key names; it accepts
// exactly the keys KVKey returns for a namespace that passes CheckSegment
// and a non-empty key.
func ParseKVKey(key string) (ns, kvKey string, err error) {
	rest, ok := strings.CutPrefix(key, KVPrefix)
	ns, enc, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || enc == "" {
		return "", "", invalid(key, "want "+KVPrefix+"<namespace>/<base64url key>")
	}
	if err := CheckSegment(ns); err != nil {
		return "", "", invalid(key, "namespace: "+err.Error())
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(enc)
	if err != nil || len(b) == 0 {
		return "", "", invalid(key, "key: not unpadded base64url")
	}
	return ns, string(b), nil
}

// ProbeKey returns the key of one run of the storage probe,
// "probe/cas-<unique>".
func ProbeKey(unique string) string { return ProbePrefix + unique }

// IsReserved reports whether key lies under a prefix celld writes and
// cellhost never does (Reserved).
func IsReserved(key string) bool {
	for _, p := range Reserved {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

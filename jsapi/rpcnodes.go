package jsapi

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/cellhost/cellhost/jsapi/web"
)

// Capabilities and nodes. An exported target (an RpcTarget, a function,
// an object behind a local RpcStub) is reached by an id of this process's
// export table: another node's process has other ids. Durable Object stubs
// travel as their namespace and id and work anywhere; references to
// exported targets do not cross nodes: host refuses to forward an RPC
// message (arguments or result) that holds one, with ErrCapabilityAcrossNodes.
// Ids start at a random base per process so that an id that reached
// another process anyway names nothing there ("RPC stub used after being
// disposed.") rather than an unrelated target.

// exportIDBase is where this process's export ids start: a random 20-bit
// prefix above the low 32 bits (ids stay below 2^53, exact as JS numbers).
func exportIDBase() uint64 { return uint64(rand.N[uint32](1<<20)+1) << 32 }

// ErrCapabilityAcrossNodes is the error of an RPC whose arguments or result
// hold an RpcTarget or function reference and whose object runs on
// another node.
var ErrCapabilityAcrossNodes = &ScriptError{Name: "DataCloneError", Message: "Could not send an RPC stub (an RpcTarget, a function or an RpcStub of one) to a Durable Object on another cellhost node: only Durable Object stubs and serializable values cross nodes."}

// EnvelopeTargetIDs returns the export ids of the target references an RPC
// message (arguments or result) holds, or errEnvelope for bytes that are
// not one. Pure: safe from any goroutine.
func EnvelopeTargetIDs(b []byte) (ids []uint64, err error) {
	ids, _, err = envelopeRefs(b)
	return ids, err
}

// EnvelopeHoldsLocalRefs reports whether an RPC message holds references
// that name something in this process only (exported targets, body
// streams of Requests and Responses), so that it cannot go to another node.
// Pure: safe from any goroutine.
func EnvelopeHoldsLocalRefs(b []byte) bool {
	ids, bodies, err := envelopeRefs(b)
	return err == nil && len(ids)+len(bodies) > 0
}

// envelopeRefs returns the export ids and the body stream references an
// RPC message holds.
func envelopeRefs(b []byte) (ids, bodies []uint64, err error) {
	if len(b) == 0 || b[0] != envelopeMagic {
		return nil, nil, errEnvelope
	}
	b = b[1:]
	uv := func() (uint64, bool) {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return x, true
	}
	skipStr := func() bool {
		n, ok := uv()
		if !ok || n > uint64(len(b)) {
			return false
		}
		b = b[n:]
		return true
	}
	n, ok := uv()
	if !ok || n > uint64(len(b)) {
		return nil, nil, errEnvelope
	}
	for i := uint64(0); i < n; i++ {
		if !skipStr() {
			return nil, nil, errEnvelope
		}
	}
	m, ok := uv()
	if !ok || m > uint64(len(b)) {
		return nil, nil, errEnvelope
	}
	for i := uint64(0); i < m; i++ {
		if len(b) == 0 {
			return nil, nil, errEnvelope
		}
		kind := b[0]
		b = b[1:]
		switch kind {
		case 1, 3:
			id, ok := uv()
			if !ok || id > maxEnvelopeID {
				return nil, nil, errEnvelope
			}
			if kind == 1 {
				ids = append(ids, id)
			} else {
				bodies = append(bodies, id)
			}
		case 2:
			if !skipStr() || !skipStr() || len(b) == 0 {
				return nil, nil, errEnvelope
			}
			named := b[0]
			b = b[1:]
			if named == 1 && !skipStr() {
				return nil, nil, errEnvelope
			}
		default:
			return nil, nil, errEnvelope
		}
	}
	return ids, bodies, nil
}

// ReleaseEnvelopeTargets drops the references an RPC message that will not
// be delivered holds (each was handed over to the message) and closes its
// body streams. Safe from any goroutine.
func ReleaseEnvelopeTargets(b []byte) {
	ids, bodies, _ := envelopeRefs(b)
	for _, id := range ids {
		releaseExport(id)
	}
	for _, id := range bodies {
		web.ReleaseRPCBody(id)
	}
}

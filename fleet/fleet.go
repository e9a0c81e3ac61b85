// Package fleet is cellhost's multi-node behaviour: the signed peer protocol
// that forwards a request for an object to the node that owns it, the fleet
// secret kept in the bucket, and deployments (one application per fleet).
// Pure decisions (may a forward be re-sent? is a node dead? how long to
// back off?) live in decide.go with table tests; the effects beside them.
//
// fleet never imports host: host defines the interfaces it needs (Remote)
// and fleet implements them; fleet's Server calls back into the node's
// objects through Local, which *host.Host satisfies. cmd/cellhost wires
// the two.
package fleet

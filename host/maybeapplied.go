package host

// MaybeAppliedError is the answer to a request whose outcome the node
// cannot know: it ran, or may have, but its writes could not be made
// durable (a commit whose upload or fsync failed), or the owner it was
// forwarded to stopped answering after the request was sent. Requests are
// not idempotent, so it is never retried: the client is told, with 503
// and this text (seed 004's wording for a lost shard owner), and decides.
type MaybeAppliedError struct {
	Reason string
}

// MsgMaybeApplied is the sentence every such answer carries.
const MsgMaybeApplied = "the request may or may not have been applied"

func (e *MaybeAppliedError) Error() string { return MsgMaybeApplied + ": " + e.Reason }

// Unavailable marks the error as a 503 (see httpError).
func (e *MaybeAppliedError) Unavailable() bool { return true }

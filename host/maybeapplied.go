package host

import (
	"context"
	"errors"
	"net"

	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/plugins"
)

// MaybeAppliedError is the answer to a request whose outcome the node
// cannot know (httpmsg.MaybeAppliedError: fleet's forwards answer it too):
// 503 with MsgMaybeApplied and the reason, never retried.
type MaybeAppliedError = httpmsg.MaybeAppliedError

// MsgMaybeApplied is the sentence every such answer carries.
const MsgMaybeApplied = httpmsg.MsgMaybeApplied

// BucketUnavailableError is the answer to a request for an object that
// could not be activated because the bucket did not answer (a network
// error, a timeout, a 5xx): the request did not run; 503 with this text,
// as for a fenced node, never a bare 500 (the client may try again).
type BucketUnavailableError struct {
	Scope string
	Err   error
}

func (e *BucketUnavailableError) Error() string {
	return "the Durable Object " + e.Scope + " could not be activated: the bucket did not answer, or changed under the restore; the request was not run (" + e.Err.Error() + ")"
}

func (e *BucketUnavailableError) Unwrap() error { return e.Err }

// Unavailable marks the error as a 503 (see httpError).
func (e *BucketUnavailableError) Unavailable() bool { return true }

// bucketUnreachable reports whether err is the bucket not answering (a
// network error, a timeout, a server error), or an object the restore
// listed that was gone when it was read (another node took the cell over
// and deleted the older epochs meanwhile), as opposed to an answer (a
// corrupt object, a refusal) or a local failure.
func bucketUnreachable(err error) bool {
	var ne net.Error
	var status interface{ HTTPStatusCode() int }
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) ||
		errors.As(err, &status) && status.HTTPStatusCode() >= 500 ||
		errors.Is(err, plugins.ErrNotFound)
}

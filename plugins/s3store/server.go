package s3store

import (
	"context"
	"sync/atomic"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// serverHeader keeps the Server header of the S3 server's latest answer
// ("AmazonS3", "MinIO", "VERSITYGW", ...), so that a refusal of the store
// (cellhost serve's start-up probe) can name what answered.
type serverHeader struct{ v atomic.Pointer[string] }

// capture adds the middleware that records the header to an operation.
func (h *serverHeader) capture(stack *middleware.Stack) error {
	return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("cellhostServerHeader",
		func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleDeserialize(ctx, in)
			if r, ok := out.RawResponse.(*smithyhttp.Response); ok && r != nil && r.Response != nil {
				if v := r.Header.Get("Server"); v != "" {
					h.v.Store(&v)
				}
			}
			return out, md, err
		}), middleware.After)
}

// ServerName is the Server header of the S3 server's latest answer, "" before
// any answer or when it sends none.
func (s *Store) ServerName() string {
	if s.server == nil {
		return ""
	}
	if v := s.server.v.Load(); v != nil {
		return *v
	}
	return ""
}

package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cellhost/cellhost/host"
)

// hostCloseTimeout bounds the graceful part of closing a host: the commits
// already made are uploaded within it, or cut short.
const hostCloseTimeout = 30 * time.Second

// closeHost closes h, reporting an error on log.
func closeHost(h *host.Host, log io.Writer) { closeHostWithin(h, log, hostCloseTimeout) }

// closeHostWithin is closeHost with its own bound.
func closeHostWithin(h *host.Host, log io.Writer, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		fmt.Fprintf(log, "close: %v\n", err)
	}
}

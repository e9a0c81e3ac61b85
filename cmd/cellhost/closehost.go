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
func closeHost(h *host.Host, log io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), hostCloseTimeout)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		fmt.Fprintf(log, "close: %v\n", err)
	}
}

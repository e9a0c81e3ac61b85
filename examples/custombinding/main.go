// Command custombinding is cellhost with one more binding kind: the
// standard plugins plus ./greet, each registered by its import. It serves
// one project (a directory with a wrangler configuration) on one address,
// without cellhost dev's reloads or a fleet:
//
//	go run ./examples/custombinding ./examples/custombinding/project 127.0.0.1:8788
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cellhost/cellhost/bindings/binding"
	_ "github.com/cellhost/cellhost/bindings/standard"
	"github.com/cellhost/cellhost/examples/custombinding/greet"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

var _ = greet.Class // the import registers the "greetings" binding kind

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: custombinding <project dir> <address>")
		os.Exit(2)
	}
	h, closeAll, err := open(os.Args[1], filepath.Join(os.Args[1], ".cellhost"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer closeAll()
	if err := http.ListenAndServe(os.Args[2], h.Handler()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// open loads the project in dir and opens its Host, its state in state;
// closeAll closes the Host and the bindings' resources.
func open(dir, state string) (*host.Host, func(), error) {
	cfg, err := wrangler.Resolve(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(os.Stderr, "warning:", w)
	}
	hc, err := project.HostConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	hc.StateDir = state
	res := binding.NewResources(state, nil, func() (plugins.ObjectStore, error) {
		return filestore.New(filepath.Join(state, "bucket"))
	})
	if err := project.BindPlugins(cfg, res, &hc); err != nil {
		res.Close()
		return nil, nil, err
	}
	h, err := host.New(hc)
	if err == nil {
		err = h.Open()
	}
	if err != nil {
		res.Close()
		return nil, nil, err
	}
	return h, func() { closeHost(h); res.Close() }, nil
}

func closeHost(h *host.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
	}
}

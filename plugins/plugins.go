// Package plugins defines ObjectStore, the bucket interface every store
// implements, and the registry that opens a store by the scheme of its
// bucket URL (file://, s3://, mem://): each store registers its scheme
// from init() with RegisterStore, and bindings/standard blank-imports the
// default set. A lifecycle for other plugin kinds (config decoding,
// provisioning) comes with the first second kind that needs one.
//
// The package is a leaf: it imports nothing of the project.
package plugins

import "sync"

var (
	mu     sync.RWMutex
	stores = map[string]StoreOpener{} // by URL scheme; guarded by mu
)

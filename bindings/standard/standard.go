// Package standard registers cellhost's default plugins by blank-importing
// them; cmd/cellhost imports it, and a custom binary imports it plus more
// (examples/custombinding).
package standard

import (
	// Object stores.
	_ "github.com/cellhost/cellhost/plugins/filestore"
	_ "github.com/cellhost/cellhost/plugins/memstore"
	_ "github.com/cellhost/cellhost/plugins/s3store"

	// Bindings.
	_ "github.com/cellhost/cellhost/bindings/assets"
	_ "github.com/cellhost/cellhost/bindings/d1"
	_ "github.com/cellhost/cellhost/bindings/kv"
	_ "github.com/cellhost/cellhost/bindings/queues"
	_ "github.com/cellhost/cellhost/bindings/r2"
	_ "github.com/cellhost/cellhost/bindings/ratelimit"
	_ "github.com/cellhost/cellhost/bindings/service"
	_ "github.com/cellhost/cellhost/bindings/unsupported"
	_ "github.com/cellhost/cellhost/bindings/workflows"
)

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
	_ "github.com/cellhost/cellhost/plugins/assets"
	_ "github.com/cellhost/cellhost/plugins/d1"
	_ "github.com/cellhost/cellhost/plugins/kv"
	_ "github.com/cellhost/cellhost/plugins/queues"
	_ "github.com/cellhost/cellhost/plugins/r2"
	_ "github.com/cellhost/cellhost/plugins/ratelimit"
	_ "github.com/cellhost/cellhost/plugins/service"
	_ "github.com/cellhost/cellhost/plugins/unsupported"
	_ "github.com/cellhost/cellhost/plugins/workflows"
)

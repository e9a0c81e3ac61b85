// Package standard registers cellhost's default plugins by blank-importing
// them; cmd/cellhost imports it, and a custom binary imports it plus more.
package standard

import (
	// Object stores.
	_ "github.com/cellhost/cellhost/plugins/filestore"
	_ "github.com/cellhost/cellhost/plugins/memstore"
	_ "github.com/cellhost/cellhost/plugins/s3store"
)

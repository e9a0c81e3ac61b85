// Package compactjson writes the byte-exact JSON of bucket records
// (own.json, node leases, wake entries, waker.json, tombstones): compact,
// members in a fixed order, no HTML escaping, as celld writes them.
package compactjson

import (
	"bytes"
	"encoding/json"
)

// AppendString appends s as a JSON string, without HTML escaping
// (encoding/json's escaping of <, > and & is not what celld writes).
func AppendString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

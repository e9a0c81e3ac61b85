// Package layers holds only a test: the import rules of
// docs/architecture.md, checked against `go list` of the whole module.
package layers

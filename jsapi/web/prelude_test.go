package web

import (
	"io/fs"
	"slices"
	"testing"
)

// Every file of js/ is part of the prelude, once.
func TestPreludeFiles_complete(t *testing.T) {
	names, err := fs.Glob(preludeFS, "js/*.js")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range names {
		got = append(got, n[len("js/"):])
	}
	want := slices.Clone(preludeFiles)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("js/ holds %v, preludeFiles lists %v", got, preludeFiles)
	}
}

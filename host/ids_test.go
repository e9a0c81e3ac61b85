package host

import (
	"strings"
	"testing"
)

func TestIDFromName_CheckValue(t *testing.T) {
	// The check value of bucket-protocol.md section 3.
	got := IDFromName("counter", "Counter", "alice")
	want := "1182fbf2bee1753c4ffbfddea36c7eff522bfe47006c0f9f7e6035db0fc0b40d"
	if got != want {
		t.Fatalf("IDFromName = %s, want %s", got, want)
	}
}

func TestParseID(t *testing.T) {
	id := IDFromName("s", "A", "x")
	if got, err := ParseID("s", "A", strings.ToUpper(id)); err != nil || got != id {
		t.Fatalf("ParseID(upper) = %q, %v; want %q", got, err, id)
	}
	if _, err := ParseID("s", "B", id); err != ErrIDNamespace {
		t.Errorf("foreign namespace: err = %v, want %v", err, ErrIDNamespace)
	}
	for _, bad := range []string{"abc", strings.Repeat("z", 64), strings.Repeat("0", 66)} {
		if _, err := ParseID("s", "A", bad); err != ErrIDFormat {
			t.Errorf("ParseID(%q) err = %v, want %v", bad, err, ErrIDFormat)
		}
	}
	if _, err := ParseID("s", "A", strings.Repeat("0", 64)); err != ErrIDNamespace {
		t.Errorf("all zero: err = %v, want %v", err, ErrIDNamespace)
	}
	u := NewUniqueID("s", "A")
	if got, err := ParseID("s", "A", u); err != nil || got != u {
		t.Errorf("unique id round trip: %q, %v", got, err)
	}
	if u == NewUniqueID("s", "A") {
		t.Error("two unique ids are equal")
	}
}

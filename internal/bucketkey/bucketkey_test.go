package bucketkey_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

const (
	scope = "Counter:1182fbf2bee1753c4ffbfddea36c7eff522bfe47006c0f9f7e6035db0fc0b40d"
	node  = "node_0123456789abcdef0123456789abcdef"
	gen   = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)

func TestFormat(t *testing.T) {
	due := time.Date(2026, 12, 1, 23, 5, 59, 999e6, time.UTC).UnixMilli()
	for _, tt := range []struct{ name, got, want string }{
		{"NodeKey", bucketkey.NodeKey(node), "nodes/" + node + ".json"},
		{"NodeKey/celld", bucketkey.NodeKey("node-1234"), "nodes/node-1234.json"},
		{"OwnKey", bucketkey.OwnKey(scope), "cells/" + scope + "/own.json"},
		{"LTXPrefix", bucketkey.LTXPrefix("A"), "cells/A/ltx/"},
		{"LTXEpochPrefix", bucketkey.LTXEpochPrefix("A", 9), "cells/A/ltx/e9/"},
		{"MarkerKey", bucketkey.MarkerKey(node, gen, scope), "node-cells/" + node + "/" + gen + "/" + scope},
		{"NodeMarkersPrefix", bucketkey.NodeMarkersPrefix("node-1234"), "node-cells/node-1234/"},
		{"WakeEntryKey", bucketkey.WakeEntryKey(due, scope), "wake/entries/2026-12-01T23:05/" + scope},
		{"WakeRetiredKey", bucketkey.WakeRetiredKey(due, scope), "wake/retired/2026-12-01T23:05/" + scope},
		{"WakeEntryKey/epoch", bucketkey.WakeEntryKey(0, "A"), "wake/entries/1970-01-01T00:00/A"},
		{"WakeEntryKey/negative", bucketkey.WakeEntryKey(-1, "A"), "wake/entries/1970-01-01T00:00/A"},
		{"WakeEntryKey/year10000", bucketkey.WakeEntryKey(math.MaxInt64, "A"), "wake/entries/9999-12-31T23:59/A"},
		{"WakeEntriesUpTo", bucketkey.WakeEntriesUpTo(due), "wake/entries/2026-12-01T23:05/\U0010FFFF"},
		{"WakerKey", bucketkey.WakerKey, "wake/waker.json"},
		{"R2Key", bucketkey.R2Key("photos", "a/b.jpg"), "r2/photos/a/b.jpg"},
		{"R2BucketPrefix", bucketkey.R2BucketPrefix("photos"), "r2/photos/"},
		{"R2UploadKey", bucketkey.R2UploadKey("photos", "u1"), "cellhost/r2-uploads/photos/u1/upload"},
		{"R2PartKey", bucketkey.R2PartKey("photos", "u1", 42), "cellhost/r2-uploads/photos/u1/part-00042"},
		{"KVKey", bucketkey.KVKey("ns", "a/b?"), "cellhost/kv/ns/YS9iPw"},
		{"ProbeKey", bucketkey.ProbeKey("x1"), "probe/cas-x1"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if got, want := bucketkey.MinuteMS(due), time.Date(2026, 12, 1, 23, 5, 0, 0, time.UTC).UnixMilli(); got != want {
		t.Errorf("MinuteMS = %d, want %d", got, want)
	}
}

func TestLTXKey(t *testing.T) {
	for _, tc := range []struct {
		scope    string
		epoch    uint64
		level    int
		min, max uint64
		want     string
	}{
		{scope, 1, 0, 1, 1, "cells/" + scope + "/ltx/e1/0000/0000000000000001-0000000000000001.ltx"},
		{"A", 10, 9, 1, 0x1f, "cells/A/ltx/e10/0009/0000000000000001-000000000000001f.ltx"},
		{"x.y_z$-:", math.MaxUint64, 0xabcd, 0xfedcba9876543210, math.MaxUint64,
			"cells/x.y_z$-:/ltx/e18446744073709551615/abcd/fedcba9876543210-ffffffffffffffff.ltx"},
	} {
		got := bucketkey.LTXKey(tc.scope, tc.epoch, tc.level, tc.min, tc.max)
		if got != tc.want {
			t.Errorf("LTXKey = %q, want %q", got, tc.want)
			continue
		}
		if err := plugins.CheckKey(got); err != nil {
			t.Errorf("CheckKey(%q): %v", got, err)
		}
		k, err := bucketkey.ParseLTXKey(got)
		want := bucketkey.LTXFile{Scope: tc.scope, Epoch: tc.epoch, Level: tc.level, MinTXID: tc.min, MaxTXID: tc.max}
		if err != nil || k != want {
			t.Errorf("ParseLTXKey(%q) = %+v, %v; want %+v", got, k, err, want)
		}
		if k.String() != got {
			t.Errorf("String = %q", k.String())
		}
	}
}

func TestParseLTXKey_Invalid(t *testing.T) {
	const tail = "/0000/0000000000000001-0000000000000002.ltx"
	for _, key := range []string{
		"",
		"cells/A/ltx/e1" + tail + "x",
		"cells/A/ltx/e1" + strings.TrimSuffix(tail, ".ltx"),
		"/cells/A/ltx/e1" + tail,
		"cell/A/ltx/e1" + tail,
		"cells//ltx/e1" + tail,                     // empty scope
		"cells/./ltx/e1" + tail,                    // "." scope
		"cells/../ltx/e1" + tail,                   // ".." scope
		"cells/a b/ltx/e1" + tail,                  // space
		"cells/a/b/ltx/e1" + tail,                  // "/" in scope
		"cells/é/ltx/e1" + tail,                    // non-ASCII
		"cells/A/ltx/e0" + tail,                    // epoch 0
		"cells/A/ltx/e01" + tail,                   // leading zero
		"cells/A/ltx/e" + tail,                     // no epoch
		"cells/A/ltx/e-1" + tail,                   // sign
		"cells/A/ltx/e+1" + tail,                   // sign
		"cells/A/ltx/E1" + tail,                    // upper case
		"cells/A/ltx/1" + tail,                     // no "e"
		"cells/A/ltx/e18446744073709551616" + tail, // overflow
		"cells/A/ltx/e1/000/0000000000000001-0000000000000002.ltx",
		"cells/A/ltx/e1/00000/0000000000000001-0000000000000002.ltx",
		"cells/A/ltx/e1/000A/0000000000000001-0000000000000002.ltx",
		"cells/A/ltx/e1/0000/000000000000000A-0000000000000002.ltx",
		"cells/A/ltx/e1/0000/0000000000000001-000000000000002.ltx",
		"cells/A/ltx/e1/0000/0000000000000001_0000000000000002.ltx",
		"cells/A/ltx/e1/0000/0000000000000001-0000000000000002.LTX",
		"cells/A/ltx/e1/0000/0000000000000000-0000000000000002.ltx", // min 0
		"cells/A/ltx/e1/0000/0000000000000003-0000000000000002.ltx", // min > max
		"cells/A/ltx/e1/0000/0000000000000001-0000000000000002.ltx/x",
		"cells/A/ltx/e1/0000/x/0000000000000001-0000000000000002.ltx",
		"cells/" + strings.Repeat("a", 256) + "/ltx/e1" + tail, // scope too long
	} {
		if k, err := bucketkey.ParseLTXKey(key); err == nil {
			t.Errorf("ParseLTXKey(%q) = %+v, want an error", key, k)
		} else if !errors.Is(err, bucketkey.ErrInvalidKey) {
			t.Errorf("ParseLTXKey(%q): %v does not wrap ErrInvalidKey", key, err)
		}
	}
	if _, err := bucketkey.ParseLTXKey("cells/" + strings.Repeat("a", 255) + "/ltx/e1" + tail); err != nil {
		t.Errorf("255-byte scope: %v", err)
	}
}

func TestParseLTXEpochDir(t *testing.T) {
	for _, tt := range []struct {
		dir  string
		want uint64
		ok   bool
	}{
		{"e1", 1, true}, {"e10", 10, true}, {"e18446744073709551615", math.MaxUint64, true},
		{"e0", 0, false}, {"e01", 0, false}, {"e", 0, false}, {"1", 0, false},
		{"e+1", 0, false}, {"e18446744073709551616", 0, false}, {"E1", 0, false},
	} {
		got, ok := bucketkey.ParseLTXEpochDir(tt.dir)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseLTXEpochDir(%q) = %d, %v; want %d, %v", tt.dir, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCheckScope(t *testing.T) {
	for _, tt := range []struct {
		scope string
		ok    bool
	}{
		{scope, true},
		{"A", true},
		{"a-b_c.d:e$f", true},
		{"...", true},
		{strings.Repeat("a", 255), true},
		{strings.Repeat("a", 256), false},
		{"", false},
		{".", false},
		{"..", false},
		{"a/b", false},
		{"a b", false},
		{"é", false},
		{"a\x00", false},
	} {
		err := bucketkey.CheckScope(tt.scope)
		if (err == nil) != tt.ok {
			t.Errorf("CheckScope(%q) = %v, want ok=%v", tt.scope, err, tt.ok)
		}
		if err != nil && !errors.Is(err, bucketkey.ErrInvalidScope) {
			t.Errorf("CheckScope(%q) = %v, does not wrap ErrInvalidScope", tt.scope, err)
		}
	}
}

func TestCheckSegment(t *testing.T) {
	for _, tt := range []struct {
		s  string
		ok bool
	}{
		{node, true}, {"node-1234", true}, {"a b", true}, {"é", true}, {"...", true},
		{strings.Repeat("n", 255), true},
		{"", false}, {".", false}, {"..", false}, {"a/b", false}, {"a\x00", false},
		{"a\n", false}, {"\x7f", false}, {"\xff", false}, {strings.Repeat("n", 256), false},
	} {
		err := bucketkey.CheckSegment(tt.s)
		if (err == nil) != tt.ok {
			t.Errorf("CheckSegment(%q) = %v, want ok=%v", tt.s, err, tt.ok)
		}
		if err != nil && !errors.Is(err, bucketkey.ErrInvalidSegment) {
			t.Errorf("CheckSegment(%q) = %v, does not wrap ErrInvalidSegment", tt.s, err)
		}
	}
}

func TestParseNodeKey(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want string
	}{
		{"nodes/" + node + ".json", node},
		{"nodes/node-1234.json", "node-1234"},
		{"nodes/x.json.json", "x.json"},
		{"nodes/.json", ""},
		{"nodes/..json", ""},
		{"nodes/a/b.json", ""},
		{"nodes/a.txt", ""},
		{"cells/a.json", ""},
		{"nodes/a.json/", ""},
	} {
		got, err := bucketkey.ParseNodeKey(tt.key)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("ParseNodeKey(%q) = %q, %v; want %q", tt.key, got, err, tt.want)
		}
		if err != nil && !errors.Is(err, bucketkey.ErrInvalidKey) {
			t.Errorf("ParseNodeKey(%q): %v does not wrap ErrInvalidKey", tt.key, err)
		}
	}
}

func TestParseOwnKey(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want string
	}{
		{"cells/" + scope + "/own.json", scope},
		{"cells/A/own.json", "A"},
		{"cells//own.json", ""},
		{"cells/a/b/own.json", ""},
		{"cells/A/own.json/", ""},
		{"cells/A/ltx/own.json", ""},
		{"nodes/A/own.json", ""},
	} {
		got, err := bucketkey.ParseOwnKey(tt.key)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("ParseOwnKey(%q) = %q, %v; want %q", tt.key, got, err, tt.want)
		}
	}
}

func TestParseMarkerKey(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want bucketkey.Marker
		ok   bool
	}{
		{"node-cells/" + node + "/" + gen + "/" + scope, bucketkey.Marker{Node: node, Generation: gen, Scope: scope}, true},
		// seed 003's example node id, and any generation
		{"node-cells/node-1234/g1/C:1", bucketkey.Marker{Node: "node-1234", Generation: "g1", Scope: "C:1"}, true},
		{"node-cells/n/g", bucketkey.Marker{}, false},
		{"node-cells/n/g/", bucketkey.Marker{}, false},
		{"node-cells/n/g/C:1/x", bucketkey.Marker{}, false},
		{"node-cells//g/C:1", bucketkey.Marker{}, false},
		{"node-cells/n//C:1", bucketkey.Marker{}, false},
		{"node-cells/n/g/a b", bucketkey.Marker{}, false},
		{"nodes-cells/n/g/C:1", bucketkey.Marker{}, false},
	} {
		got, err := bucketkey.ParseMarkerKey(tt.key)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseMarkerKey(%q) = %+v, %v; want %+v", tt.key, got, err, tt.want)
		}
		if err == nil && got.String() != tt.key {
			t.Errorf("Marker.String = %q, want %q", got.String(), tt.key)
		}
	}
}

func TestParseWakeKey(t *testing.T) {
	m := time.Date(2026, 12, 1, 23, 5, 0, 0, time.UTC).UnixMilli()
	for _, tt := range []struct {
		key  string
		want bucketkey.WakeEntry
		ok   bool
	}{
		{"wake/entries/2026-12-01T23:05/" + scope, bucketkey.WakeEntry{MinuteMS: m, Scope: scope}, true},
		{"wake/retired/2026-12-01T23:05/" + scope, bucketkey.WakeEntry{Retired: true, MinuteMS: m, Scope: scope}, true},
		{"wake/entries/1970-01-01T00:00/A", bucketkey.WakeEntry{Scope: "A"}, true},
		{"wake/entries/9999-12-31T23:59/A", bucketkey.WakeEntry{MinuteMS: 253402300740000, Scope: "A"}, true},
		{"wake/entries/1969-12-31T23:59/A", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-12-01T23:5/A", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-12-01 23:05/A", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-12-01T23:05:00/A", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-13-01T23:05/A", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-02-30T23:05/A", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-12-01T24:00/A", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-12-01T23:05/", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-12-01T23:05/a/b", bucketkey.WakeEntry{}, false},
		{"wake/entries/2026-12-01T23:05", bucketkey.WakeEntry{}, false},
		{"wake/2026-12-01T23:05/A", bucketkey.WakeEntry{}, false}, // celld v0.3.0's layout
		{"wake/waker.json", bucketkey.WakeEntry{}, false},
	} {
		got, err := bucketkey.ParseWakeKey(tt.key)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("ParseWakeKey(%q) = %+v, %v; want %+v, ok=%v", tt.key, got, err, tt.want, tt.ok)
		}
		if err == nil && got.String() != tt.key {
			t.Errorf("WakeEntry.String = %q, want %q", got.String(), tt.key)
		}
	}
}

// TestWakeKeys_Order checks what the wake scan relies on: keys of earlier
// minutes sort first, and WakeEntriesUpTo(now) bounds every entry due by
// now's minute.
func TestWakeKeys_Order(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	steps := []int64{0, 59_999, 60_000, 3_600_000, 86_400_000, 400 * 86_400_000}
	for i := 1; i < len(steps); i++ {
		a := bucketkey.WakeEntryKey(base+steps[i-1], "zzz")
		b := bucketkey.WakeEntryKey(base+steps[i], "A")
		if bucketkey.MinuteMS(base+steps[i-1]) < bucketkey.MinuteMS(base+steps[i]) && !(a < b) {
			t.Errorf("%q does not sort before %q", a, b)
		}
		if up := bucketkey.WakeEntriesUpTo(base + steps[i]); !(a <= up && b <= up) {
			t.Errorf("WakeEntriesUpTo = %q does not bound %q and %q", up, a, b)
		}
	}
	if up, later := bucketkey.WakeEntriesUpTo(base), bucketkey.WakeEntryKey(base+60_000, "A"); later <= up {
		t.Errorf("WakeEntriesUpTo(%d) = %q bounds the next minute's %q", base, up, later)
	}
}

func TestParseR2Key(t *testing.T) {
	for _, tt := range []struct {
		key, bucket, object string
		ok                  bool
	}{
		{"r2/photos/a/b.jpg", "photos", "a/b.jpg", true},
		{"r2/b/x", "b", "x", true},
		{"r2/b/", "", "", false},
		{"r2//x", "", "", false},
		{"r2/b", "", "", false},
		{"r2/b/\xff", "", "", false},
		{"cells/b/x", "", "", false},
	} {
		b, o, err := bucketkey.ParseR2Key(tt.key)
		if b != tt.bucket || o != tt.object || (err == nil) != tt.ok {
			t.Errorf("ParseR2Key(%q) = %q, %q, %v", tt.key, b, o, err)
		}
	}
}

func TestParseR2PartKey(t *testing.T) {
	for _, tt := range []struct {
		key, bucket, upload string
		n                   int
		ok                  bool
	}{
		{"cellhost/r2-uploads/photos/u1/part-00042", "photos", "u1", 42, true},
		{"cellhost/r2-uploads/b/u/part-10000", "b", "u", 10000, true},
		{"cellhost/r2-uploads/b/u/part-10001", "", "", 0, false},
		{"cellhost/r2-uploads/b/u/part-00000", "", "", 0, false},
		{"cellhost/r2-uploads/b/u/part-0004x", "", "", 0, false},
		{"cellhost/r2-uploads/b/u/part-42", "", "", 0, false},
		{"cellhost/r2-uploads/b/u/upload", "", "", 0, false},
		{"cellhost/r2-uploads//u/part-00001", "", "", 0, false},
		{"cellhost/r2-uploads/b/u/x/part-00001", "", "", 0, false},
		{"r2/b/u/part-00001", "", "", 0, false},
	} {
		b, u, n, err := bucketkey.ParseR2PartKey(tt.key)
		if b != tt.bucket || u != tt.upload || n != tt.n || (err == nil) != tt.ok {
			t.Errorf("ParseR2PartKey(%q) = %q, %q, %d, %v", tt.key, b, u, n, err)
		}
		if err == nil && bucketkey.R2PartKey(b, u, n) != tt.key {
			t.Errorf("R2PartKey round trip of %q", tt.key)
		}
	}
}

func TestIsReserved(t *testing.T) {
	for _, k := range []string{"fleet/x", "deploy/x", "deploy-blobs/x", "log/x", "telemetry/x"} {
		if !bucketkey.IsReserved(k) {
			t.Errorf("IsReserved(%q) = false", k)
		}
	}
	for _, k := range []string{bucketkey.NodeKey(node), bucketkey.OwnKey(scope), bucketkey.WakerKey, "r2/fleet/x", "logs/x",
		bucketkey.PeerSecretKey, bucketkey.DeploymentKey("20260101T000000.000Z-abcd0123")} {
		if bucketkey.IsReserved(k) {
			t.Errorf("IsReserved(%q) = true", k)
		}
	}
}

// FuzzParse runs every parser on one input: a parser that accepts a key
// must format it back byte for byte, return valid fields, and yield a key
// every store accepts.
func FuzzParse(f *testing.F) {
	for _, k := range []string{
		"cells/" + scope + "/ltx/e1/0000/0000000000000001-0000000000000001.ltx",
		"cells/A/ltx/e10/0009/0000000000000001-000000000000001f.ltx",
		"cells/A/ltx/e01/0000/0000000000000001-0000000000000002.ltx",
		"cells/A/ltx/e1/0000/0000000000000003-0000000000000002.ltx",
		"cells/A/own.json",
		"nodes/" + node + ".json",
		"nodes/node-1234.json",
		"node-cells/node-1234/g/C:1",
		"node-cells/" + node + "/" + gen + "/" + scope,
		"wake/entries/2026-12-01T23:05/" + scope,
		"wake/retired/1970-01-01T00:00/A",
		"wake/entries/2026-02-30T23:05/A",
		"r2/b/a/b",
		"cellhost/r2-uploads/b/u/part-00042",
		"cellhost/kv/ns/a2V5",
		"",
	} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		accepted := func(name, formatted string, err error, valid bool) {
			if err != nil {
				if !errors.Is(err, bucketkey.ErrInvalidKey) {
					t.Fatalf("%s(%q): %v does not wrap ErrInvalidKey", name, key, err)
				}
				return
			}
			if formatted != key {
				t.Fatalf("%s(%q) formats back as %q", name, key, formatted)
			}
			if !valid {
				t.Fatalf("%s(%q) returned invalid fields", name, key)
			}
			if err := plugins.CheckKey(key); err != nil && name != "ParseR2Key" {
				t.Fatalf("%s accepted %q, which is not a portable store key: %v", name, key, err)
			}
		}
		if k, err := bucketkey.ParseLTXKey(key); true {
			accepted("ParseLTXKey", k.String(), err, bucketkey.CheckScope(k.Scope) == nil && k.Epoch > 0 &&
				k.MinTXID > 0 && k.MinTXID <= k.MaxTXID && k.Level >= 0 && k.Level <= 0xffff)
		}
		if n, err := bucketkey.ParseNodeKey(key); true {
			accepted("ParseNodeKey", bucketkey.NodeKey(n), err, bucketkey.CheckSegment(n) == nil)
		}
		if s, err := bucketkey.ParseOwnKey(key); true {
			accepted("ParseOwnKey", bucketkey.OwnKey(s), err, bucketkey.CheckScope(s) == nil)
		}
		if m, err := bucketkey.ParseMarkerKey(key); true {
			accepted("ParseMarkerKey", m.String(), err, bucketkey.CheckSegment(m.Node) == nil &&
				bucketkey.CheckSegment(m.Generation) == nil && bucketkey.CheckScope(m.Scope) == nil)
		}
		if w, err := bucketkey.ParseWakeKey(key); true {
			accepted("ParseWakeKey", w.String(), err, bucketkey.CheckScope(w.Scope) == nil &&
				w.MinuteMS >= 0 && w.MinuteMS%60000 == 0 && bucketkey.MinuteMS(w.MinuteMS) == w.MinuteMS)
		}
		if b, o, err := bucketkey.ParseR2Key(key); true {
			accepted("ParseR2Key", bucketkey.R2Key(b, o), err, bucketkey.CheckSegment(b) == nil && o != "")
		}
		if ns, k, err := bucketkey.ParseKVKey(key); true {
			accepted("ParseKVKey", bucketkey.KVKey(ns, k), err, bucketkey.CheckSegment(ns) == nil && k != "")
		}
		if b, u, n, err := bucketkey.ParseR2PartKey(key); true {
			accepted("ParseR2PartKey", bucketkey.R2PartKey(b, u, n), err,
				bucketkey.CheckSegment(b) == nil && bucketkey.CheckSegment(u) == nil && n >= 1 && n <= 10000)
		}
	})
}

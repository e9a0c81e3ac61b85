package ownership_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
)

func TestDefaultAddr(t *testing.T) {
	if got, want := ownership.DefaultAddr(nodeA), nodeA+".cellhost.invalid:9"; got != want {
		t.Errorf("DefaultAddr = %q, want %q", got, want)
	}
}

func TestValidateNodeID(t *testing.T) {
	for _, id := range []string{nodeA, ownership.NewNodeID()} {
		if err := ownership.ValidateNodeID(id); err != nil {
			t.Errorf("ValidateNodeID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", "node_", "node_" + strings.Repeat("A", 32), "node_" + strings.Repeat("a", 31), "nodeX" + strings.Repeat("a", 32), "node_" + strings.Repeat("a", 33)} {
		if err := ownership.ValidateNodeID(id); !errors.Is(err, ownership.ErrInvalidNodeID) {
			t.Errorf("ValidateNodeID(%q) = %v, want ErrInvalidNodeID", id, err)
		}
	}
	if g := ownership.NewGeneration(); len(g) != 64 || strings.Trim(g, "0123456789abcdef") != "" {
		t.Errorf("NewGeneration() = %q, want 64 lowercase hex", g)
	}
}

func TestOwnRecord_Encode(t *testing.T) {
	tests := []struct {
		rec  ownership.OwnRecord
		want string
	}{
		{ownership.OwnRecord{Node: nodeA, Epoch: 7}, `{"node":"` + nodeA + `","epoch":7}`},
		{ownership.OwnRecord{Node: "", Epoch: 18446744073709551615}, `{"node":"","epoch":18446744073709551615}`},
	}
	for _, tt := range tests {
		if got := string(tt.rec.Encode()); got != tt.want {
			t.Errorf("Encode() = %s, want %s", got, tt.want)
		}
	}
}

func TestDecodeOwnRecord(t *testing.T) {
	const key = "cells/C:1/own.json"
	t.Run("Valid", func(t *testing.T) {
		tests := []struct {
			in   string
			want ownership.OwnRecord
		}{
			{`{"node":"` + nodeA + `","epoch":3}`, ownership.OwnRecord{Node: nodeA, Epoch: 3}},
			{`{"epoch":3,"node":""}`, ownership.OwnRecord{Epoch: 3}},
			{"{\"node\": \"\", \"epoch\": 12}\n", ownership.OwnRecord{Epoch: 12}}, // the repair text of 5.1
		}
		for _, tt := range tests {
			got, err := ownership.DecodeOwnRecord(key, []byte(tt.in))
			if err != nil || got != tt.want {
				t.Errorf("DecodeOwnRecord(%s) = %+v, %v, want %+v", tt.in, got, err, tt.want)
			}
		}
	})
	errCases := []struct {
		name, in, want string
	}{
		{"Empty", ``, "unexpected end of JSON"},
		{"NotObject", `[1]`, "want a JSON object"},
		{"Null", `null`, "want a JSON object, got null"},
		{"Truncated", `{"node":"","epoch":1`, "unexpected end"},
		{"Trailing", `{"node":"","epoch":1}x`, "data after the JSON object"},
		{"TwoObjects", `{"node":"","epoch":1}{}`, "data after the JSON object"},
		{"Unknown", `{"node":"","epoch":1,"x":1}`, `unknown member "x"`},
		{"CaseFolded", `{"Node":"","epoch":1}`, `unknown member "Node"`},
		{"Duplicate", `{"node":"","epoch":1,"epoch":2}`, `duplicate member "epoch"`},
		{"MissingNode", `{"epoch":1}`, `missing member "node"`},
		{"MissingEpoch", `{"node":""}`, `missing member "epoch"`},
		{"NullNode", `{"node":null,"epoch":1}`, "node: want a string"},
		{"NumberNode", `{"node":1,"epoch":1}`, "node: want a string"},
		{"BadNode", `{"node":"a/b","epoch":1}`, "invalid node id"},
		{"NegativeEpoch", `{"node":"","epoch":-1}`, "epoch: want a non-negative integer"},
		{"FloatEpoch", `{"node":"","epoch":1.5}`, "epoch: want a 64-bit unsigned integer"},
		{"ExpEpoch", `{"node":"","epoch":1e3}`, "epoch: want a 64-bit unsigned integer"},
		{"StringEpoch", `{"node":"","epoch":"1"}`, "epoch: want a non-negative integer"},
		{"HugeEpoch", `{"node":"","epoch":18446744073709551616}`, "epoch: want a 64-bit unsigned integer"},
		{"ZeroEpoch", `{"node":"","epoch":0}`, "epoch 0"},
	}
	for _, tt := range errCases {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ownership.DecodeOwnRecord(key, []byte(tt.in))
			var re *ownership.RecordError
			if !errors.As(err, &re) || re.Key != key || !errors.Is(err, ownership.ErrCorruptRecord) {
				t.Fatalf("DecodeOwnRecord(%s) = %v, want a *RecordError for %s", tt.in, err, key)
			}
			if !strings.HasPrefix(err.Error(), "decode "+key+": ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to name %s and contain %q", err, key, tt.want)
			}
		})
	}
}

// specNodeRecord is the example of bucket-protocol.md section 4 with its
// placeholders filled in, compact.
const specNodeRecord = `{"node":"node_0123456789abcdef0123456789abcdef","expires_ms":1787000010000,"addr":"10.0.0.12:8081",` +
	`"probe_public_key":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","peer_protocol":2,` +
	`"ownership_index_generation":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",` +
	`"load":{"sampled_ms":0,"resident_cells":0,"host_websockets":0,"rss_bytes":1,` +
	`"in_use_bytes":null,"cpu_percent_x100":0,"open_fds":0,"fd_limit":0,` +
	`"pressured":true,"shed_cells":0,"restoring":0}}`

func TestNodeRecord_EncodeDecode(t *testing.T) {
	const key = "nodes/node_0123456789abcdef0123456789abcdef.json"
	rec, err := ownership.DecodeNodeRecord(key, []byte(specNodeRecord))
	if err != nil {
		t.Fatal(err)
	}
	want := ownership.NodeRecord{
		Node:                     "node_0123456789abcdef0123456789abcdef",
		ExpiresMS:                1787000010000,
		Addr:                     "10.0.0.12:8081",
		ProbePublicKey:           strings.Repeat("a", 64),
		PeerProtocol:             2,
		OwnershipIndexGeneration: strings.Repeat("b", 64),
		Load:                     ownership.UnattractiveLoad(),
	}
	if !reflect.DeepEqual(rec, want) {
		t.Errorf("decoded %+v, want %+v", rec, want)
	}
	if got := string(want.Encode()); got != specNodeRecord {
		t.Errorf("Encode() =\n%s\nwant\n%s", got, specNodeRecord)
	}
	n := uint64(5)
	rec.Load.InUseBytes = &n
	rec.Addr = "<a&b>"
	enc := rec.Encode()
	if !bytes.Contains(enc, []byte(`"in_use_bytes":5,`)) || !bytes.Contains(enc, []byte(`"addr":"<a&b>"`)) {
		t.Errorf("Encode() = %s, want in_use_bytes 5 and an unescaped addr", enc)
	}
	back, err := ownership.DecodeNodeRecord(key, enc)
	if err != nil || !reflect.DeepEqual(back, rec) {
		t.Errorf("round trip = %+v, %v, want %+v", back, err, rec)
	}
}

// TestDecodeNodeRecord_Celld: a bucket shared with celld holds node records
// with members cellhost does not write (celld's "log") and node ids of any
// shape (seed 003's "node-1234"); they decode, and the unknown members are
// skipped.
func TestDecodeNodeRecord_Celld(t *testing.T) {
	const key = "nodes/node-1234.json"
	in := strings.Replace(specNodeRecord, `"node":"node_0123456789abcdef0123456789abcdef"`, `"node":"node-1234"`, 1)
	in = strings.Replace(in, `"addr"`, `"log":{"state":"open","epoch":3,"ensemble":["a","b"],"tiered":false,"active":true},"addr"`, 1)
	in = strings.Replace(in, `"restoring":0`, `"restoring":0,"future":[1,{"x":null}]`, 1)
	rec, err := ownership.DecodeNodeRecord(key, []byte(in))
	if err != nil {
		t.Fatalf("DecodeNodeRecord(celld record) = %v", err)
	}
	if rec.Node != "node-1234" || rec.ExpiresMS != 1787000010000 || rec.Addr != "10.0.0.12:8081" || !rec.Load.Pressured {
		t.Errorf("DecodeNodeRecord(celld record) = %+v", rec)
	}
	if !rec.Live(key, time.UnixMilli(1787000000000)) {
		t.Errorf("celld record not live before expires_ms")
	}
	own, err := ownership.DecodeOwnRecord("cells/C:1/own.json", []byte(`{"node":"node-1234","epoch":7}`))
	if err != nil || own != (ownership.OwnRecord{Node: "node-1234", Epoch: 7}) {
		t.Errorf("DecodeOwnRecord(celld owner) = %+v, %v", own, err)
	}
}

func TestDecodeNodeRecord_Errors(t *testing.T) {
	const key = "nodes/node_0123456789abcdef0123456789abcdef.json"
	replace := func(old, new string) string {
		if !strings.Contains(specNodeRecord, old) {
			t.Fatalf("%q not in the record", old)
		}
		return strings.Replace(specNodeRecord, old, new, 1)
	}
	tests := []struct {
		name, in, want string
	}{
		{"Truncated", specNodeRecord[:40], "unexpected end"},
		{"Trailing", specNodeRecord + "{}", "data after"},
		{"UnknownBad", replace(`"addr"`, `"x":{,"addr"`), "malformed JSON"},
		{"MissingLoad", replace(`"restoring":0`, `"restorin":0`), `missing member "restoring"`},
		{"DuplicateKnown", replace(`"addr"`, `"node":"x","addr"`), `duplicate member "node"`},
		{"MissingLoadMember", replace(`,"restoring":0`, ``), `load: missing member "restoring"`},
		{"NullExpires", replace(`"expires_ms":1787000010000`, `"expires_ms":null`), "expires_ms: want a non-negative integer"},
		{"NegativeExpires", replace(`"expires_ms":1787000010000`, `"expires_ms":-1`), "expires_ms: want a non-negative integer"},
		{"StringPressured", replace(`"pressured":true`, `"pressured":"true"`), "load: pressured: want true or false"},
		{"NullLoad", replace(`"load":{`, `"load":null,"x":{`), "load: want a JSON object, got null"},
		{"BadNode", replace(`"node":"node_0123456789abcdef0123456789abcdef"`, `"node":"a/b"`), "node: invalid node id"},
		{"BadProbeKey", replace(strings.Repeat("a", 64), "zz"), "probe_public_key"},
		{"BadGeneration", replace(strings.Repeat("b", 64), strings.Repeat("B", 64)), "ownership_index_generation"},
		{"Huge", `{"node":"` + strings.Repeat(" ", 70000) + `"}`, "more than 65536"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ownership.DecodeNodeRecord(key, []byte(tt.in))
			var re *ownership.RecordError
			if !errors.As(err, &re) || re.Key != key {
				t.Fatalf("DecodeNodeRecord = %v, want a *RecordError for %s", err, key)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestNodeRecord_Live(t *testing.T) {
	now := time.UnixMilli(1787000000000)
	key := bucketkey.NodeKey(nodeA)
	rec := func(node string, exp uint64, addr string) ownership.NodeRecord {
		return ownership.NodeRecord{Node: node, ExpiresMS: exp, Addr: addr}
	}
	tests := []struct {
		name string
		rec  ownership.NodeRecord
		key  string
		want bool
	}{
		{"Live", rec(nodeA, 1787000000001, "x:1"), key, true},
		{"ExpiresNow", rec(nodeA, 1787000000000, "x:1"), key, false},
		{"Expired", rec(nodeA, 1, "x:1"), key, false},
		{"Tombstone", rec(nodeA, 0, "x:1"), key, false},
		{"EmptyAddr", rec(nodeA, 1787000010000, ""), key, false},
		{"OtherNode", rec(nodeB, 1787000010000, "x:1"), key, false},
		{"NotANodeKey", rec(nodeA, 1787000010000, "x:1"), "cells/x", false},
		{"MaxExpires", rec(nodeA, 1<<64-1, "x:1"), key, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rec.Live(tt.key, now); got != tt.want {
				t.Errorf("Live = %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzDecodeOwnRecord(f *testing.F) {
	for _, s := range []string{
		`{"node":"` + nodeA + `","epoch":3}`, `{"node":"","epoch":1}`, `{"node": "", "epoch": 12}`,
		`{"node":"","epoch":1,"node":""}`, `{"Node":"","epoch":1}`, `{}`, `null`, `{"node":"","epoch":1e2}`,
	} {
		f.Add([]byte(s))
	}
	const key = "cells/C:1/own.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ownership.DecodeOwnRecord(key, data)
		if err != nil {
			var re *ownership.RecordError
			if !errors.As(err, &re) || re.Key != key {
				t.Fatalf("error %v is not a *RecordError for the key", err)
			}
			return
		}
		enc := rec.Encode()
		back, err := ownership.DecodeOwnRecord(key, enc)
		if err != nil {
			t.Fatalf("decode(encode(%+v)) = %v (encoded %s)", rec, err, enc)
		}
		if back != rec {
			t.Fatalf("round trip %+v -> %s -> %+v", rec, enc, back)
		}
		if again := back.Encode(); !bytes.Equal(again, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, again)
		}
	})
}

func FuzzDecodeNodeRecord(f *testing.F) {
	f.Add([]byte(specNodeRecord))
	f.Add([]byte(strings.Replace(specNodeRecord, `"in_use_bytes":null`, `"in_use_bytes":12`, 1)))
	f.Add([]byte(strings.Replace(specNodeRecord, `"addr":"10.0.0.12:8081"`, `"addr":"\u003c\ud800x"`, 1)))
	f.Add([]byte(`{"node":1}`))
	f.Add([]byte(`{"load":{}}`))
	const key = "nodes/node_0123456789abcdef0123456789abcdef.json"
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := ownership.DecodeNodeRecord(key, data)
		if err != nil {
			var re *ownership.RecordError
			if !errors.As(err, &re) || re.Key != key {
				t.Fatalf("error %v is not a *RecordError for the key", err)
			}
			return
		}
		enc := rec.Encode()
		back, err := ownership.DecodeNodeRecord(key, enc)
		if err != nil {
			t.Fatalf("decode(encode(%+v)) = %v (encoded %s)", rec, err, enc)
		}
		if !reflect.DeepEqual(back, rec) {
			t.Fatalf("round trip %+v -> %s -> %+v", rec, enc, back)
		}
		if again := back.Encode(); !bytes.Equal(again, enc) {
			t.Fatalf("encoding not stable: %s then %s", enc, again)
		}
		_ = rec.Live(key, time.Now())
	})
}

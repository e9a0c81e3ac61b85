package fleet_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/internal/bucketkey"
)

const scopeA = "Counter:1182fbf2bee1753c4ffbfddea36c7eff522bfe47006c0f9f7e6035db0fc0b40d"

// 2026-08-28T01:33:20Z and a minute later.
const (
	dueA = int64(1787880800000)
	dueB = dueA + 60_000
)

func TestWakeEntryBody_Encode(t *testing.T) {
	b := fleet.WakeEntryBody{Cell: scopeA, DueMS: dueA + 123, Epoch: 7}
	want := `{"cell":"` + scopeA + `","due_ms":1787880800123,"epoch":7}`
	if got := string(b.Encode()); got != want {
		t.Errorf("Encode = %s, want %s", got, want)
	}
	if got, want := b.Key(), "wake/entries/2026-08-28T01:33/"+scopeA; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
	if got, want := b.RetiredKey(), "wake/retired/2026-08-28T01:33/"+scopeA; got != want {
		t.Errorf("RetiredKey = %s, want %s", got, want)
	}
	back, err := fleet.DecodeWakeEntry(b.Key(), b.Encode())
	if err != nil || back != b {
		t.Errorf("DecodeWakeEntry(Encode) = %+v, %v", back, err)
	}
}

func TestDecodeWakeEntry_Errors(t *testing.T) {
	key := fleet.WakeEntryBody{Cell: scopeA, DueMS: dueA}.Key()
	for _, tt := range []struct{ name, key, body string }{
		{"BadKey", "wake/x", `{}`},
		{"NotJSON", key, `{`},
		{"Missing", key, `{"cell":"` + scopeA + `","due_ms":1787880800000}`},
		{"OtherCell", key, `{"cell":"A","due_ms":1787880800000,"epoch":1}`},
		{"OtherMinute", key, `{"cell":"` + scopeA + `","due_ms":1787880860000,"epoch":1}`},
		{"FloatDue", key, `{"cell":"` + scopeA + `","due_ms":1.5,"epoch":1}`},
		{"Trailing", key, `{"cell":"` + scopeA + `","due_ms":1787880800000,"epoch":1} x`},
	} {
		if b, err := fleet.DecodeWakeEntry(tt.key, []byte(tt.body)); err == nil {
			t.Errorf("%s: DecodeWakeEntry = %+v, want an error", tt.name, b)
		}
	}
	// Unknown members are a later writer's business.
	if _, err := fleet.DecodeWakeEntry(key, []byte(`{"cell":"`+scopeA+`","due_ms":1787880800001,"epoch":1,"x":[1]}`)); err != nil {
		t.Errorf("unknown member: %v", err)
	}
}

func TestWakeTransition(t *testing.T) {
	a := fleet.WakeEntryBody{Cell: scopeA, DueMS: dueA, Epoch: 1}
	aLater := fleet.WakeEntryBody{Cell: scopeA, DueMS: dueA + 5000, Epoch: 1} // same minute
	aEpoch := fleet.WakeEntryBody{Cell: scopeA, DueMS: dueA, Epoch: 2}
	b := fleet.WakeEntryBody{Cell: scopeA, DueMS: dueB, Epoch: 1}
	listed := fleet.WakeEntryBody{Cell: scopeA, DueMS: dueA} // learned from a LIST
	type op struct {
		kind fleet.WakeOpKind
		key  string
	}
	put := func(e fleet.WakeEntryBody) op { return op{fleet.PutEntry, e.Key()} }
	retire := func(e fleet.WakeEntryBody) []op {
		return []op{{fleet.PutRetired, e.RetiredKey()}, {fleet.DeleteOld, e.Key()}}
	}
	cat := func(ops ...[]op) []op {
		var out []op
		for _, o := range ops {
			out = append(out, o...)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		cur  []fleet.WakeEntryBody
		next *fleet.WakeEntryBody
		want []op
	}{
		{"NothingToNothing", nil, nil, nil},
		{"Arm", nil, &a, []op{put(a)}},
		{"Unchanged", []fleet.WakeEntryBody{a}, &a, nil},
		{"Disarm", []fleet.WakeEntryBody{a}, nil, retire(a)},
		{"SameMinute", []fleet.WakeEntryBody{a}, &aLater, []op{put(aLater)}},
		{"NewEpoch", []fleet.WakeEntryBody{a}, &aEpoch, []op{put(aEpoch)}},
		{"Move", []fleet.WakeEntryBody{a}, &b, cat([]op{put(b)}, retire(a))},
		{"MoveFromListed", []fleet.WakeEntryBody{listed}, &b, cat([]op{put(b)}, retire(listed))},
		{"OverwriteListed", []fleet.WakeEntryBody{listed}, &a, []op{put(a)}},
		{"TwoStale", []fleet.WakeEntryBody{a, b}, nil, cat(retire(a), retire(b))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []op
			for _, o := range fleet.WakeTransition(tt.cur, tt.next) {
				got = append(got, op{o.Kind, o.Key})
				if o.Kind == fleet.PutEntry && string(o.Body) != string(tt.next.Encode()) {
					t.Errorf("PutEntry body %s, want %s", o.Body, tt.next.Encode())
				}
				if o.Kind == fleet.DeleteOld && o.Body != nil {
					t.Errorf("DeleteOld with a body")
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("WakeTransition = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWakeDue(t *testing.T) {
	e := fleet.WakeEntryBody{Cell: scopeA, DueMS: 1000}
	for _, tt := range []struct {
		now, poll int64
		want      bool
	}{{0, 999, false}, {0, 1000, true}, {1000, 0, true}, {2000, 0, true}, {500, 499, false}} {
		if got := fleet.WakeDue(e, tt.now, tt.poll); got != tt.want {
			t.Errorf("WakeDue(now %d, poll %d) = %v, want %v", tt.now, tt.poll, got, tt.want)
		}
	}
}

func TestWakerRecord_Bytes(t *testing.T) {
	r := fleet.WakerRecord{Node: "node_0123456789abcdef0123456789abcdef", ExpiresMS: 1787000015000}
	want := `{"node":"node_0123456789abcdef0123456789abcdef","expires_ms":1787000015000}`
	if got := string(r.Encode()); got != want {
		t.Errorf("Encode = %q, want %q", got, want)
	}
	if got := string(fleet.WakerRecord{Node: "a<b>&", ExpiresMS: 0}.Encode()); got != `{"node":"a<b>&","expires_ms":0}` {
		t.Errorf("Encode escapes: %q", got)
	}
	back, err := fleet.DecodeWakerRecord([]byte(want))
	if err != nil || back != r {
		t.Errorf("Decode = %+v, %v", back, err)
	}
	for _, bad := range []string{``, `{}`, `{"node":"a"}`, `{"node":1,"expires_ms":1}`, `{"node":"a","expires_ms":1.5}`, `{"node":"a","expires_ms":1}{}`} {
		if _, err := fleet.DecodeWakerRecord([]byte(bad)); err == nil {
			t.Errorf("DecodeWakerRecord(%s) = nil error", bad)
		}
	}
}

func TestDecideWakerClaim(t *testing.T) {
	const me, other = "n-me", "n-other"
	for _, tt := range []struct {
		name    string
		cur     fleet.WakerRecord
		present bool
		ok      bool
		want    fleet.WakerClaim
	}{
		{"Absent", fleet.WakerRecord{}, false, false, fleet.ClaimCreate},
		{"Mine", fleet.WakerRecord{Node: me, ExpiresMS: 2000}, true, true, fleet.ClaimCAS},
		{"MineExpired", fleet.WakerRecord{Node: me, ExpiresMS: 1}, true, true, fleet.ClaimCAS},
		{"OtherLive", fleet.WakerRecord{Node: other, ExpiresMS: 1001}, true, true, fleet.NoClaim},
		{"OtherExpiresNow", fleet.WakerRecord{Node: other, ExpiresMS: 1000}, true, true, fleet.ClaimCAS},
		{"OtherExpired", fleet.WakerRecord{Node: other, ExpiresMS: 999}, true, true, fleet.ClaimCAS},
		{"Undecodable", fleet.WakerRecord{}, true, false, fleet.ClaimCAS},
	} {
		if got := fleet.DecideWakerClaim(tt.cur, tt.present, tt.ok, me, 1000); got != tt.want {
			t.Errorf("%s: DecideWakerClaim = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzDecodeWakeEntry(f *testing.F) {
	b := fleet.WakeEntryBody{Cell: scopeA, DueMS: dueA, Epoch: 3}
	f.Add(b.Key(), string(b.Encode()))
	f.Add("wake/entries/1970-01-01T00:00/A", `{"cell":"A","due_ms":-5,"epoch":0}`)
	f.Add("wake/retired/1970-01-01T00:00/A", `{"cell":"A","due_ms":0,"epoch":0,"x":null}`)
	f.Fuzz(func(t *testing.T, key, body string) {
		e, err := fleet.DecodeWakeEntry(key, []byte(body))
		if err != nil {
			return
		}
		// What decodes re-encodes to a body that decodes the same, under
		// the key of the same minute and cell.
		back, err := fleet.DecodeWakeEntry(key, e.Encode())
		if err != nil || back != e {
			t.Fatalf("re-decode of %s = %+v, %v; want %+v", e.Encode(), back, err, e)
		}
		if !strings.HasSuffix(key, "/"+e.Cell) {
			t.Fatalf("key %q does not name cell %q", key, e.Cell)
		}
	})
}

func FuzzDecodeWakerRecord(f *testing.F) {
	f.Add(`{"node":"node_0123456789abcdef0123456789abcdef","expires_ms":1787000015000}`)
	f.Add(`{"node":"","expires_ms":-1,"extra":{}}`)
	f.Fuzz(func(t *testing.T, body string) {
		r, err := fleet.DecodeWakerRecord([]byte(body))
		if err != nil {
			return
		}
		back, err := fleet.DecodeWakerRecord(r.Encode())
		if err != nil || back != r {
			t.Fatalf("round trip of %+v: %+v, %v", r, back, err)
		}
	})
}

func TestRetiredExpired(t *testing.T) {
	m := dueA - dueA%60_000
	for _, tt := range []struct {
		k    bucketkey.WakeEntry
		now  int64
		want bool
	}{
		{bucketkey.WakeEntry{Retired: true, MinuteMS: m, Scope: "A"}, m + 60_000 + fleet.RetiredKeepMS, true},
		{bucketkey.WakeEntry{Retired: true, MinuteMS: m, Scope: "A"}, m + 60_000 + fleet.RetiredKeepMS - 1, false},
		{bucketkey.WakeEntry{Retired: false, MinuteMS: m, Scope: "A"}, m + 10*fleet.RetiredKeepMS, false}, // an entry, never
	} {
		if got := fleet.RetiredExpired(tt.k, tt.now); got != tt.want {
			t.Errorf("RetiredExpired(%+v, %d) = %v, want %v", tt.k, tt.now, got, tt.want)
		}
	}
}

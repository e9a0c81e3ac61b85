package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

const (
	tickMS = int64(5000)
	deadA  = "node_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	liveB  = "node_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	celldC = "node-1234" // seed 003's node id
	genX   = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	genY   = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

var t0 = time.UnixMilli(1787000000000)

func TestRetryDelayMS(t *testing.T) {
	var got []int64
	for failures := 0; failures <= 9; failures++ {
		got = append(got, RetryDelayMS(tickMS, failures))
	}
	want := []int64{0, 5000, 10000, 20000, 40000, 80000, 160000, 320000, 320000, 320000}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RetryDelayMS(5000, 0..9) = %v, want %v", got, want)
	}
}

func TestNodeRecordIsDead(t *testing.T) {
	rec := func(node string, exp uint64) ownership.NodeRecord {
		return ownership.NodeRecord{Node: node, ExpiresMS: exp}
	}
	for _, tt := range []struct {
		name string
		key  string
		rec  ownership.NodeRecord
		now  int64
		want bool
	}{
		{"Expired", bucketkey.NodeKey(deadA), rec(deadA, 999), 1000, true},
		{"ExpiresNow", bucketkey.NodeKey(deadA), rec(deadA, 1000), 1000, true}, // <=, as the spec and celld
		{"Live", bucketkey.NodeKey(deadA), rec(deadA, 1001), 1000, false},
		{"Tombstone", bucketkey.NodeKey(deadA), rec(deadA, 0), 1000, true},
		{"OtherNode", bucketkey.NodeKey(deadA), rec(liveB, 1), 1000, false},
		{"NotANodeKey", "cells/x", rec("x", 1), 1000, false},
		{"Celld", bucketkey.NodeKey(celldC), rec(celldC, 1), 1000, true},
	} {
		if got := NodeRecordIsDead(tt.key, tt.rec, tt.now); got != tt.want {
			t.Errorf("%s: NodeRecordIsDead = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestParseMarkerKey(t *testing.T) {
	for _, tt := range []struct {
		key, node, cell string
		ok              bool
	}{
		{"node-cells/node-1234/g1/C:1", "node-1234", "C:1", true},
		{"node-cells/" + deadA + "/" + strings.Repeat("f", 64) + "/C:2", deadA, "C:2", true},
		{"node-cells/n/g", "", "", false},
		{"node-cells/n/g/C:1/x", "", "", false},
		{"nodes/n.json", "", "", false},
	} {
		node, cell, ok := ParseMarkerKey(tt.key)
		if node != tt.node || cell != tt.cell || ok != tt.ok {
			t.Errorf("ParseMarkerKey(%q) = %q, %q, %v", tt.key, node, cell, ok)
		}
	}
}

func TestCellsIndexedByNodes(t *testing.T) {
	keys := []string{
		bucketkey.MarkerKey(deadA, genX, "C:1"), bucketkey.MarkerKey(deadA, genY, "C:2"),
		bucketkey.MarkerKey(liveB, genX, "C:3"), "node-cells/bad", bucketkey.MarkerKey(celldC, "g", "C:4"),
	}
	got := CellsIndexedByNodes(keys, map[string]bool{deadA: true, celldC: true})
	want := map[string][]string{deadA: keys[:2], celldC: keys[4:]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CellsIndexedByNodes = %v, want %v", got, want)
	}
}

func TestTombstone(t *testing.T) {
	in := `{"node":"node-1234","expires_ms":1787000010000,"log":{"state":"open","epoch":3},` + "\n" + ` "addr":"a:1"}`
	got, err := Tombstone([]byte(in))
	want := `{"node":"node-1234","expires_ms":0,"log":{"state":"open","epoch":3},"addr":"a:1"}`
	if err != nil || string(got) != want {
		t.Errorf("Tombstone = %s, %v; want %s", got, err, want)
	}
	for _, bad := range []string{`[]`, `{"node":"x"}`, `{"expires_ms":1} x`, `{`} {
		if _, err := Tombstone([]byte(bad)); err == nil {
			t.Errorf("Tombstone(%s) = nil error", bad)
		}
	}
}

// gcFixture is a bucket with: dead node A with 100 markers over two
// generations, dead celld node C with 2 markers, live node B with 3
// markers, and an undecodable record.
func gcFixture(t *testing.T) (*faultStore, *fakeNow) {
	t.Helper()
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	now := uint64(t0.UnixMilli())
	mustPut(s, bucketkey.NodeKey(deadA), nodeRecord(deadA, now-1))
	mustPut(s, bucketkey.NodeKey(liveB), nodeRecordGen(liveB, now+60000, genX))
	celld := strings.Replace(string(nodeRecord(celldC, now)), `"addr"`, `"log":{"state":"open"},"addr"`, 1)
	mustPut(s, bucketkey.NodeKey(celldC), []byte(celld))
	mustPut(s, "nodes/broken.json", []byte(`{"node":`))
	for i := range 100 {
		gen := genX
		if i%2 == 1 {
			gen = genY
		}
		mustPut(s, bucketkey.MarkerKey(deadA, gen, fmt.Sprintf("C:%03d", i)), nil)
	}
	for i := range 2 {
		mustPut(s, bucketkey.MarkerKey(celldC, "g", fmt.Sprintf("C:%d", i)), nil)
	}
	for i := range 3 {
		mustPut(s, bucketkey.MarkerKey(liveB, genX, fmt.Sprintf("C:%d", i)), nil)
	}
	return s, clock
}

func listKeys(t *testing.T, s ownership.Store, prefix string) []string {
	t.Helper()
	page, err := s.List(context.Background(), prefix, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range page.Objects {
		keys = append(keys, o.Key)
	}
	return keys
}

func noRenew(context.Context) error { return nil }

func TestDeadNodeGc_Pass(t *testing.T) {
	s, clock := gcFixture(t)
	s.holdDeletes, s.holdPrefix = MaxGCDeletesInFlight, bucketkey.NodeMarkersPrefix(deadA)
	g := NewDeadNodeGc(s, nil)
	setup := len(s.callsSince(0))
	if err := g.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
		t.Fatal(err)
	}
	if got := listKeys(t, s, bucketkey.NodeMarkersPrefix(deadA)); len(got) != 0 {
		t.Errorf("dead node A keeps %d markers", len(got))
	}
	if got := listKeys(t, s, bucketkey.NodeMarkersPrefix(celldC)); len(got) != 0 {
		t.Errorf("dead celld node keeps %d markers", len(got))
	}
	if got := listKeys(t, s, bucketkey.NodeMarkersPrefix(liveB)); len(got) != 3 {
		t.Errorf("live node B has %d markers, want its 3", len(got))
	}
	for key, want := range map[string]bool{
		bucketkey.NodeKey(deadA): false, bucketkey.NodeKey(celldC): false,
		bucketkey.NodeKey(liveB): true, "nodes/broken.json": true, // undecodable: never deleted
	} {
		if got := exists(s, key); got != want {
			t.Errorf("%s exists = %v, want %v", key, got, want)
		}
	}
	if s.maxInFlight != MaxGCDeletesInFlight {
		t.Errorf("at most %d deletes in flight, want exactly %d (100 markers)", s.maxInFlight, MaxGCDeletesInFlight)
	}
	// The two-step fence: a tombstone CAS, then the delete.
	var fence []string
	for _, c := range s.callsSince(setup) {
		if strings.HasSuffix(c, bucketkey.NodeKey(deadA)) {
			fence = append(fence, c)
		}
	}
	if want := []string{"put " + bucketkey.NodeKey(deadA), "delete " + bucketkey.NodeKey(deadA)}; !reflect.DeepEqual(fence, want) {
		t.Errorf("writes of A's record = %v, want %v", fence, want)
	}
	st := g.Stats()
	if st.Swept != 2 || st.Retired != 2 || st.Deletes != 102 || st.Skipped != 1 || st.Retries != 0 {
		t.Errorf("Stats = %+v", st)
	}
}

// TestDeadNodeGc_BackOff: a sweep that keeps failing is attempted again
// after 1, 2, 4 ... 64 ticks, then every 64 ticks.
func TestDeadNodeGc_BackOff(t *testing.T) {
	s, clock := gcFixture(t)
	s.failDelete = func(key string) error {
		if strings.HasPrefix(key, bucketkey.NodeMarkersPrefix(deadA)) {
			return errors.New("injected: 503")
		}
		return nil
	}
	g := NewDeadNodeGc(s, nil)
	listA := "list " + bucketkey.NodeMarkersPrefix(deadA)
	var attempts []int
	for tick := 0; tick <= 400; tick++ {
		before := s.count(listA)
		if err := g.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
			t.Fatal(err)
		}
		if s.count(listA) > before {
			attempts = append(attempts, tick)
		}
		clock.Add(time.Duration(tickMS) * time.Millisecond)
	}
	want := []int{0, 1, 3, 7, 15, 31, 63, 127, 191, 255, 319, 383}
	if !reflect.DeepEqual(attempts, want) {
		t.Errorf("attempts at ticks %v, want %v", attempts, want)
	}
	if got := g.Retries(deadA); got != len(want) {
		t.Errorf("retries[A] = %d, want %d", got, len(want))
	}
	if !exists(s, bucketkey.NodeKey(deadA)) {
		t.Error("A's record was retired although its markers are not gone")
	}
	// The celld node, which did not fail, was done in the first pass.
	if exists(s, bucketkey.NodeKey(celldC)) {
		t.Error("the celld node's record is still there")
	}
	// The store recovers: the next attempt sweeps and retires A.
	s.failDelete = nil
	clock.Add(64 * time.Duration(tickMS) * time.Millisecond)
	if err := g.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
		t.Fatal(err)
	}
	if exists(s, bucketkey.NodeKey(deadA)) || g.Retries(deadA) != 0 {
		t.Errorf("after recovery: record exists %v, retries %d", exists(s, bucketkey.NodeKey(deadA)), g.Retries(deadA))
	}
}

// TestDeadNodeGc_CrashBetweenTombstoneAndDelete: the record keeps its
// tombstone, still reads as dead, and the next pass deletes it; swept
// spares the marker listing on that pass.
func TestDeadNodeGc_CrashBetweenTombstoneAndDelete(t *testing.T) {
	s, clock := gcFixture(t)
	key := bucketkey.NodeKey(deadA)
	s.failDelete = func(k string) error {
		if k == key {
			return errors.New("injected: crash")
		}
		return nil
	}
	g := NewDeadNodeGc(s, nil)
	if err := g.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
		t.Fatal(err)
	}
	body, _, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("the record is gone: %v", err)
	}
	rec, err := ownership.DecodeNodeRecord(key, body)
	if err != nil || rec.ExpiresMS != 0 || !NodeRecordIsDead(key, rec, 0) {
		t.Fatalf("after the crash: %+v, %v; want a tombstone that reads dead", rec, err)
	}
	if !g.Swept(deadA) {
		t.Fatal("A's markers are gone but A is not swept")
	}
	s.failDelete = nil
	mark := len(s.callsSince(0))
	if err := g.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
		t.Fatal(err)
	}
	if exists(s, key) {
		t.Error("the tombstoned record survived the next pass")
	}
	for _, c := range s.callsSince(mark) {
		if c == "list "+bucketkey.NodeMarkersPrefix(deadA) {
			t.Error("a swept node's markers were listed again")
		}
		if c == "put "+key {
			t.Error("the tombstone was written twice")
		}
	}
}

// TestDeadNodeGc_WakerLostMidPass: a failed renewal stops the pass at once.
func TestDeadNodeGc_WakerLostMidPass(t *testing.T) {
	s, clock := gcFixture(t)
	g := NewDeadNodeGc(s, nil)
	calls := 0
	var mark int
	renew := func(context.Context) error {
		calls++
		if calls == 2 { // the pass has listed nodes/, and is about to sweep
			mark = len(s.callsSince(0))
			return fmt.Errorf("%w: injected", ErrWakerLost)
		}
		return nil
	}
	err := g.RunElectedPass(context.Background(), renew, clock.Now, tickMS)
	if !errors.Is(err, ErrWakerLost) {
		t.Fatalf("RunElectedPass = %v, want ErrWakerLost", err)
	}
	if after := s.callsSince(mark); len(after) != 0 {
		t.Errorf("the pass went on after the lost renewal: %v", after)
	}
	if n := len(listKeys(t, s, bucketkey.NodeMarkersPrefix(deadA))); n != 100 {
		t.Errorf("A has %d markers, want all 100", n)
	}

	// Lost while deleting a large batch: the deletes issued before the
	// renewal finish, no other starts, and A is neither swept nor retired.
	s2, clock2 := gcFixture(t)
	g2 := NewDeadNodeGc(s2, nil)
	for i := 100; i < 400; i++ { // A gets 400 markers: a renewal after each 4*64
		mustPut(s2, bucketkey.MarkerKey(deadA, genX, fmt.Sprintf("D:%03d", i)), nil)
	}
	deleteA := "delete " + bucketkey.NodeMarkersPrefix(deadA)
	renew2 := func(context.Context) error {
		if s2.count(deleteA) > 0 { // inside A's batch
			return fmt.Errorf("%w: injected", ErrWakerLost)
		}
		return nil
	}
	err = g2.RunElectedPass(context.Background(), renew2, clock2.Now, tickMS)
	if !errors.Is(err, ErrWakerLost) {
		t.Fatalf("RunElectedPass = %v, want ErrWakerLost", err)
	}
	if n := s2.count(deleteA); n != 4*MaxGCDeletesInFlight {
		t.Errorf("%d of A's markers deleted, want the %d issued before the renewal failed", n, 4*MaxGCDeletesInFlight)
	}
	if g2.Swept(deadA) || !exists(s2, bucketkey.NodeKey(deadA)) {
		t.Error("A was swept or retired by a pass that lost the waker role")
	}
	if s2.count("put "+bucketkey.NodeKey(deadA)) != 1 { // the fixture's
		t.Error("A's record was written after the waker role was lost")
	}
}

func countPrefix(calls []string, prefix string) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// TestDeadNodeGc_RetireRace: a node that renews its record between the
// read and the tombstone CAS keeps it (the CAS is rejected).
func TestDeadNodeGc_RetireRace(t *testing.T) {
	s, clock := gcFixture(t)
	key := bucketkey.NodeKey(deadA)
	s.failPut = func(k string) error {
		if k == key {
			// The node comes back just before the tombstone lands.
			s.failPut = nil
			mustPut(s.Store, key, nodeRecord(deadA, uint64(t0.UnixMilli())+60000))
		}
		return nil
	}
	g := NewDeadNodeGc(s, nil)
	if err := g.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
		t.Fatal(err)
	}
	body, _, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("the revived node's record was deleted: %v", err)
	}
	if rec, _ := ownership.DecodeNodeRecord(key, body); NodeRecordIsDead(key, rec, t0.UnixMilli()) {
		t.Errorf("the revived node's record reads dead: %s", body)
	}
	_ = plugins.ErrPreconditionFailed
}

func FuzzTombstone(f *testing.F) {
	f.Add(string(nodeRecord(deadA, 1787000000000)))
	f.Add(`{"node":"node-1234","expires_ms":5,"log":{"a":[1,2]}}`)
	f.Add(`{"expires_ms":1,"expires_ms":2}`)
	f.Fuzz(func(t *testing.T, body string) {
		tomb, err := Tombstone([]byte(body))
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(tomb, &m); err != nil {
			t.Fatalf("Tombstone(%s) = %s, not a JSON object: %v", body, tomb, err)
		}
		if string(m["expires_ms"]) != "0" {
			t.Fatalf("Tombstone(%s) = %s: expires_ms %s", body, tomb, m["expires_ms"])
		}
		again, err := Tombstone(tomb)
		if err != nil || string(again) != string(tomb) {
			t.Fatalf("Tombstone is not idempotent: %s -> %s, %v", tomb, again, err)
		}
	})
}

// TestStaleMarkers: markers of a generation that is over (the node's
// record names another, or the node has no record) are garbage; the
// current generation's, and those of nodes not judged (dead: the dead-node
// path's; unreadable), are kept.
func TestStaleMarkers(t *testing.T) {
	keys := []string{
		bucketkey.MarkerKey(liveB, genX, "C:1"),  // B's current generation
		bucketkey.MarkerKey(liveB, genY, "C:2"),  // B rejoined since
		bucketkey.MarkerKey(deadA, genY, "C:3"),  // A: not judged
		bucketkey.MarkerKey(celldC, genX, "C:4"), // C: no record
		"node-cells/not-a-marker",
	}
	current := map[string]string{liveB: genX, celldC: ""}
	got := StaleMarkers(keys, current)
	want := []string{bucketkey.MarkerKey(liveB, genY, "C:2"), bucketkey.MarkerKey(celldC, genX, "C:4")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("StaleMarkers = %v, want %v", got, want)
	}
}

// TestDeadNodeGc_StaleGenerations: the markers a live node left from a
// generation before its last rejoin, and those of a node whose record is
// gone, are deleted by the pass (every staleMarkerEvery passes, the
// first included), where the dead-node path (which starts from nodes/)
// never reaches them; the live node's current markers stay.
func TestDeadNodeGc_StaleGenerations(t *testing.T) {
	s, clock := gcFixture(t)
	gone := "node_" + strings.Repeat("e", 32)
	for i := range 5 {
		mustPut(s, bucketkey.MarkerKey(liveB, genY, fmt.Sprintf("C:old%d", i)), nil)
		mustPut(s, bucketkey.MarkerKey(gone, genX, fmt.Sprintf("C:%d", i)), nil)
	}
	g := NewDeadNodeGc(s, nil)
	if err := g.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
		t.Fatal(err)
	}
	got := listKeys(t, s, bucketkey.NodeMarkersPrefix(liveB))
	if len(got) != 3 {
		t.Errorf("live node B keeps %v, want its 3 markers of generation %s", got, genX)
	}
	for _, k := range got {
		if !strings.Contains(k, "/"+genX+"/") {
			t.Errorf("marker of an old generation kept: %s", k)
		}
	}
	if got := listKeys(t, s, bucketkey.NodeMarkersPrefix(gone)); len(got) != 0 {
		t.Errorf("a node with no record keeps %d markers", len(got))
	}
	if st := g.Stats(); st.StaleMarkers != 10 {
		t.Errorf("Stats = %+v, want 10 stale markers deleted", st)
	}
}

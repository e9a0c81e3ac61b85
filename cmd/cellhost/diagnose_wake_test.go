package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

func TestListWake(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	now := time.UnixMilli(1787000000000)
	due := now.UnixMilli()
	for key, body := range map[string][]byte{
		bucketkey.WakerKey: fleet.WakerRecord{Node: "node-1234", ExpiresMS: due + 1500}.Encode(),
		fleet.WakeEntryBody{Cell: "C:1", DueMS: due - 120_000}.Key():        nil, // overdue
		fleet.WakeEntryBody{Cell: "C:2", DueMS: due + 3_600_000}.Key():      nil,
		fleet.WakeEntryBody{Cell: "C:1", DueMS: due - 180_000}.RetiredKey(): nil,
		bucketkey.MarkerKey("node-1234", "g", "C:1"):                        nil,
		bucketkey.MarkerKey("node-1234", "h", "C:2"):                        nil,
		bucketkey.MarkerKey("n2", "g", "C:3"):                               nil,
	} {
		if _, err := s.Put(ctx, key, body, plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := listWake(ctx, s, &out, now); err != nil {
		t.Fatal(err)
	}
	want := "wake/waker.json: held by node-1234, expires in 1.5s\n" +
		"wake/: 2 entries (1 overdue by more than their minute), 1 retired\n" +
		"node-cells/: 3 markers of 2 nodes\n"
	if out.String() != want {
		t.Errorf("listWake =\n%s\nwant\n%s", out.String(), want)
	}
}

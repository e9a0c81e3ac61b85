package wsrelay

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestOpen_RoundTrip(t *testing.T) {
	o := Open{Class: "Room", ID: "ab", Name: "r", Method: "GET", URL: "http://x/do/Room/r", Header: [][2]string{{"upgrade", "websocket"}}, Socket: "s1", Edge: "node_1"}
	b, _ := json.Marshal(&o)
	got, err := DecodeOpen(b)
	if err != nil || !reflect.DeepEqual(*got, o) {
		t.Fatalf("DecodeOpen = %+v, %v", got, err)
	}
	for _, bad := range []string{`{}`, `{"class":"A","id":"b","x":1}`, `{"class":"A","id":"b","url":"u"} {}`, `[`} {
		if _, err := DecodeOpen([]byte(bad)); err == nil {
			t.Errorf("DecodeOpen(%s) = nil error", bad)
		}
	}
	// A newer node's member is skipped (rolling upgrades).
	got, err = DecodeOpen([]byte(`{"class":"A","id":"b","url":"u","added_later":{"x":[1]}}`))
	if err != nil || got.Class != "A" || got.ID != "b" || got.URL != "u" {
		t.Errorf("DecodeOpen with an unknown member = %+v, %v", got, err)
	}
}

func TestHello_Decode(t *testing.T) {
	for _, good := range []string{`{"status":101,"socket":"x"}`, `{"status":404,"body":"AA=="}`, `{"error":{"kind":"gone","message":"m"}}`} {
		if _, err := DecodeHello([]byte(good)); err != nil {
			t.Errorf("DecodeHello(%s): %v", good, err)
		}
	}
	for _, bad := range []string{`{}`, `{"status":1000}`, `{"error":{"kind":"what"}}`, `{"status":1,"extra":1}`} {
		if _, err := DecodeHello([]byte(bad)); err == nil {
			t.Errorf("DecodeHello(%s) = nil error", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"status":101,"socket":"x"}`))
	f.Add([]byte(`{"class":"A","id":"b","url":"u","socket":"s"}`))
	f.Add([]byte(`{"error":{"kind":"not_owner","addr":"1.2.3.4:5"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if o, err := DecodeOpen(b); err == nil {
			b2, _ := json.Marshal(o)
			o2, err := DecodeOpen(b2)
			if err != nil || !reflect.DeepEqual(o, o2) {
				t.Fatalf("Open round trip: %+v -> %+v, %v", o, o2, err)
			}
		}
		if h, err := DecodeHello(b); err == nil {
			b2, _ := json.Marshal(h)
			h2, err := DecodeHello(b2)
			if err != nil || !reflect.DeepEqual(h, h2) {
				t.Fatalf("Hello round trip: %+v -> %+v, %v", h, h2, err)
			}
		}
	})
}

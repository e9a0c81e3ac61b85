package queues

import (
	"reflect"
	"testing"
)

func TestRequestRoundTrip(t *testing.T) {
	r := &Request{Op: "send", Queue: "q", Messages: []Message{{ID: "a", Body: []byte{0, 1, 255}, ContentType: "bytes", TimestampMs: 5, DelayMs: 1000}}}
	b, err := EncodeRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRequest(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("got %+v, want %+v", got, r)
	}
	for _, bad := range []string{
		`{"op":"send","queue":"q","x":1}`, `{"op":"nope","queue":"q"}`, `{"op":"send","queue":""}`,
		`{"op":"send","queue":"q","messages":[{"id":"a","contentType":"xml"}]}`,
		`{"op":"send","queue":"q","messages":[{"id":"","contentType":"text"}]}`,
		`{"op":"settle","queue":"q","retries":[{"id":"a","delayMs":-1}]}`,
		`{"op":"kick","queue":"q"} {}`,
	} {
		if _, err := DecodeRequest([]byte(bad)); err == nil {
			t.Errorf("DecodeRequest(%s) accepted it", bad)
		}
	}
}

func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"op":"send","queue":"q","messages":[{"id":"a","body":"AAE=","contentType":"v8","ts":1}]}`))
	f.Add([]byte(`{"op":"settle","queue":"q","acks":["a"],"retries":[{"id":"b","delayMs":5}],"dead":["c"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRequest(b)
		if err != nil {
			return
		}
		again, err := EncodeRequest(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := DecodeRequest(again)
		if err != nil {
			t.Fatalf("re-encoded request rejected: %v", err)
		}
		if !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip changed %+v to %+v", r, r2)
		}
	})
}

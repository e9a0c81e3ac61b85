package workflows

import (
	"reflect"
	"testing"
)

func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"op":"create","workflow":"w","class":"C","id":"i","params":"AAE="}`))
	f.Add([]byte(`{"op":"step","key":"a#1","value":"AAE=","lease":"x","consume":3}`))
	f.Add([]byte(`{"op":"suspend","key":"s#1","until":5,"wait":"t"}`))
	f.Add([]byte(`{"op":"mock","mock":"error","key":"a#1","name":"a","value":"AAE=","times":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRequest(b)
		if err != nil {
			return
		}
		again, _ := EncodeRequest(r)
		r2, err := DecodeRequest(again)
		if err != nil || !reflect.DeepEqual(r, r2) {
			t.Fatalf("round trip: %+v -> %+v (%v)", r, r2, err)
		}
	})
}

func TestDecodeRequest_Rejects(t *testing.T) {
	for _, bad := range []string{`{"op":"x"}`, `{"op":"create","id":"i"}`, `{"op":"status","nope":1}`, `{"op":"status"} 1`, `{"op":"mock","mock":"x"}`, `{"op":"mock","mock":"error","times":-1}`} {
		if _, err := DecodeRequest([]byte(bad)); err == nil {
			t.Errorf("DecodeRequest(%s) accepted it", bad)
		}
	}
}

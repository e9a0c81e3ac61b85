package compactjson

import (
	"encoding/json"
	"testing"
)

func TestAppendString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"node-1", `"node-1"`},
		{"a<b>&c", `"a<b>&c"`},
		{"q\"\\\n", `"q\"\\\n"`},
		{"\u2028", `"\u2028"`},
		{"é", `"é"`},
	} {
		got := string(AppendString([]byte("x:"), tt.in))
		if got != "x:"+tt.want {
			t.Errorf("AppendString(%q) = %s, want x:%s", tt.in, got, tt.want)
		}
		var back string
		if err := json.Unmarshal([]byte(tt.want), &back); err != nil || back != tt.in {
			t.Errorf("%s decodes to %q, %v; want %q", tt.want, back, err, tt.in)
		}
	}
}

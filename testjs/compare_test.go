package testjs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func transcript(steps ...string) *Transcript {
	t := &Transcript{Format: TranscriptFormat}
	for _, s := range steps {
		t.Steps = append(t.Steps, json.RawMessage(s))
	}
	return t
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name     string
		exp, act *Transcript
		want     []string
	}{
		{
			name: "equal",
			exp:  transcript(`{"req":"GET /","status":200,"contentType":null,"body":"x"}`, `{"slept":5}`),
			act:  transcript(`{"req":"GET /","status":200,"contentType":null,"body":"x"}`, `{"slept":5}`),
		},
		{
			name: "json body key order and number spelling",
			exp:  transcript(`{"req":"GET /","status":200,"body":"{\"a\":1,\"b\":[1,{\"c\":2}]}"}`),
			act:  transcript(`{"req":"GET /","status":200,"body":" {\"b\":[1.0,{\"c\":2e0}],\"a\":1}\n"}`),
		},
		{
			name: "json ws messages",
			exp:  transcript(`{"ws":"/ws","messages":["{\"x\":1,\"y\":2}","plain"],"closeCode":1000,"closeReason":""}`),
			act:  transcript(`{"ws":"/ws","messages":["{\"y\":2,\"x\":1}","plain"],"closeCode":1000,"closeReason":""}`),
		},
		{
			name: "status differs",
			exp:  transcript(`{"req":"GET /inc","status":200,"contentType":"application/json","body":"{}"}`),
			act:  transcript(`{"req":"GET /inc","status":500,"contentType":"application/json","body":"{}"}`),
			want: []string{"step 0 (GET /inc): status: expected 200, got 500"},
		},
		{
			name: "json body value differs",
			exp:  transcript(`{"req":"GET /","body":"{\"n\":1,\"m\":[1,2]}"}`),
			act:  transcript(`{"req":"GET /","body":"{\"m\":[1],\"n\":2}"}`),
			want: []string{
				"step 0 (GET /): body (json).n: expected 1, got 2",
				"step 0 (GET /): body (json).m: expected 2 items, got 1",
				`step 0 (GET /): body (json).m[1]: expected 2, got (missing)`,
			},
		},
		{
			name: "text body differs exactly",
			exp:  transcript(`{"req":"GET /t","body":"a b"}`),
			act:  transcript(`{"req":"GET /t","body":"a  b"}`),
			want: []string{`step 0 (GET /t): body: expected "a b", got "a  b"`},
		},
		{
			name: "one side json only",
			exp:  transcript(`{"req":"GET /t","body":"{}"}`),
			act:  transcript(`{"req":"GET /t","body":"not json"}`),
			want: []string{`step 0 (GET /t): body: expected "{}", got "not json"`},
		},
		{
			name: "contentType is not json-compared",
			exp:  transcript(`{"req":"GET /t","contentType":"1"}`),
			act:  transcript(`{"req":"GET /t","contentType":"1.0"}`),
			want: []string{`step 0 (GET /t): contentType: expected "1", got "1.0"`},
		},
		{
			name: "missing and extra fields",
			exp:  transcript(`{"req":"GET /r","status":302,"headers":{"location":"/x"}}`),
			act:  transcript(`{"req":"GET /r","status":302,"error":"request error: ECONNRESET"}`),
			want: []string{
				`step 0 (GET /r): headers: expected {"location":"/x"}, got (missing)`,
				`step 0 (GET /r): error: expected (missing), got "request error: ECONNRESET"`,
			},
		},
		{
			name: "missing step",
			exp:  transcript(`{"req":"GET /a","status":200}`, `{"slept":100}`),
			act:  transcript(`{"req":"GET /a","status":200}`),
			want: []string{"step 1 (sleep 100): step missing from actual transcript"},
		},
		{
			name: "extra step",
			exp:  transcript(`{"req":"GET /a","status":200}`),
			act:  transcript(`{"req":"GET /a","status":200}`, `{"ws":"/ws","messages":[],"closeCode":null,"closeReason":null}`),
			want: []string{"step 1 (ws /ws): step missing from expected transcript"},
		},
		{
			name: "parallel",
			exp:  transcript(`[{"req":"GET /inc","status":200,"body":"1"},{"req":"GET /inc","status":200,"body":"2"}]`),
			act:  transcript(`[{"req":"GET /inc","status":200,"body":"1"},{"req":"GET /inc","status":200,"body":"1"}]`),
			want: []string{"step 0 (parallel x2 GET /inc): [1].body (json): expected 2, got 1"},
		},
		{
			name: "step shape differs",
			exp:  transcript(`{"slept":1}`),
			act:  transcript(`[]`),
			want: []string{"step 0 (sleep 1): (step): expected {\"slept\":1}, got []"},
		},
		{
			name: "ws close code and message count",
			exp:  transcript(`{"ws":"/ws","name":"a","messages":["x"],"closeCode":1000,"closeReason":"bye"}`),
			act:  transcript(`{"ws":"/ws","name":"a","messages":[],"closeCode":1006,"closeReason":""}`),
			want: []string{
				"step 0 (ws /ws): messages: expected 1 items, got 0",
				`step 0 (ws /ws): messages[0]: expected "x", got (missing)`,
				"step 0 (ws /ws): closeCode: expected 1000, got 1006",
				`step 0 (ws /ws): closeReason: expected "bye", got ""`,
			},
		},
		{
			name: "at most five per step",
			exp:  transcript(`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}`),
			act:  transcript(`{"a":0,"b":0,"c":0,"d":0,"e":0,"f":0,"g":0}`),
			want: []string{
				"step 0 (step): a: expected 1, got 0",
				"step 0 (step): b: expected 2, got 0",
				"step 0 (step): c: expected 3, got 0",
				"step 0 (step): d: expected 4, got 0",
				"step 0 (step): e: expected 5, got 0",
			},
		},
		{
			name: "integer keys enumerate first",
			exp:  transcript(`{"req":"GET /","body":"{\"b\":1,\"10\":1,\"2\":1}"}`),
			act:  transcript(`{"req":"GET /","body":"{}"}`),
			want: []string{
				"step 0 (GET /): body (json).2: expected 1, got (missing)",
				"step 0 (GET /): body (json).10: expected 1, got (missing)",
				"step 0 (GET /): body (json).b: expected 1, got (missing)",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.exp, tt.act)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Compare:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestCompare_longValuesAreCut(t *testing.T) {
	long := strings.Repeat("x", 400)
	got := Compare(transcript(`{"body":"`+long+`"}`), transcript(`{"body":"y"}`))
	want := `step 0 (step): body: expected "` + strings.Repeat("x", 296) + `..., got "y"`
	if len(got) != 1 || got[0] != want {
		t.Errorf("Compare = %q, want %q", got, want)
	}
}

func TestCompare_nil(t *testing.T) {
	if got := Compare(nil, nil); len(got) != 0 {
		t.Errorf("Compare(nil, nil) = %q", got)
	}
	got := Compare(nil, transcript(`{"slept":1}`))
	if want := []string{"step 0 (sleep 1): step missing from expected transcript"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Compare = %q, want %q", got, want)
	}
}

func TestParseTranscript_bytesRoundTrip(t *testing.T) {
	in := "{\"format\":\"do-conformance-transcript/1\",\"steps\":[\n" +
		` {"req":"GET /","status":200,"contentType":null,"body":"<é>` + "\u2028" + `\"\\\u0001"},` + "\n" +
		` [{"req":"GET /a","status":204,"contentType":null,"body":""}],` + "\n" +
		` {"slept":0.5}` + "\n]}\n"
	tr, err := ParseTranscript([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(tr.Bytes()); got != in {
		t.Errorf("Bytes:\n got %s\nwant %s", got, in)
	}
	empty := &Transcript{}
	if got, want := string(empty.Bytes()), "{\"format\":\"do-conformance-transcript/1\",\"steps\":[\n\n]}\n"; got != want {
		t.Errorf("empty Bytes = %q, want %q", got, want)
	}
}

var tenth = 0.1 // a variable: constant arithmetic would be exact

func TestJSNumber(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", 1: "1", -1: "-1", 2500: "2500", 0.5: "0.5", 1.5e-7: "1.5e-7", 1e21: "1e+21",
		123456789012345680000: "123456789012345680000", 0.000001: "0.000001", 1e-7: "1e-7",
		1.7976931348623157e308: "1.7976931348623157e+308", tenth + 2*tenth: "0.30000000000000004",
	} {
		if got := jsNumber(f); got != want {
			t.Errorf("jsNumber(%v) = %q, want %q", f, got, want)
		}
	}
}

// sharedCases is the team's shared corpus: $CELLHOST_CASES, else
// ../shared/conformance/cases beside the repository. Without it the test
// skips with one line, unless $CI is set: then it fails.
func sharedCases(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CELLHOST_CASES")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "conformance", "cases")
	}
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set but the shared conformance corpus is missing: %v", err)
		}
		t.Skipf("needs ../shared beside the repository (or CELLHOST_CASES): %s is missing", dir)
	}
	return dir
}

// Every recorded case loads, and its expected.json prints back byte for byte.
func TestLoadCase_corpus(t *testing.T) {
	t.Run("testdata", func(t *testing.T) { checkCorpus(t, casesDir) })
	t.Run("shared", func(t *testing.T) { checkCorpus(t, sharedCases(t)) })
}

func checkCorpus(t *testing.T, root string) {
	dirs, err := filepath.Glob(filepath.Join(root, "*", "steps.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases under %s: %v", root, err)
	}
	for _, f := range dirs {
		dir := filepath.Dir(f)
		c, err := LoadCase(dir)
		if err != nil {
			t.Errorf("LoadCase: %v", err)
			continue
		}
		if c.Name != filepath.Base(dir) || len(c.Steps) == 0 || c.Expected == nil {
			t.Errorf("%s: name %q, %d steps, expected %v", dir, c.Name, len(c.Steps), c.Expected != nil)
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(c.Expected.Bytes()); got != string(raw) {
			t.Errorf("%s: expected.json does not print back identically", c.Name)
		}
		if len(c.Expected.Steps) != len(c.Steps) {
			t.Errorf("%s: %d steps but %d recorded", c.Name, len(c.Steps), len(c.Expected.Steps))
		}
		if d := Compare(c.Expected, c.Expected); len(d) > 0 {
			t.Errorf("%s: transcript differs from itself: %q", c.Name, d)
		}
	}
}

func TestParseSteps(t *testing.T) {
	steps, err := parseSteps([]byte(`{"steps":[
		{"req": {"method": "post", "path": "/x?y=1", "headers": {"X-A": "1", "X-N": 2, "X-L": ["a", "b"]}, "json": {"b": 1, "1": [true, null]}, "recordHeaders": ["Location"]}},
		{"sleep": 2.5},
		{"parallel": [{"path": "/inc"}, {"req": {"path": "/inc", "bodyBase64": "AAEC/w"}}]},
		{"parallel": []},
		{"ws": {"path": "/ws", "send": ["a", {"base64": "AQID"}, {"k": 1}, 5], "recv": 1, "close": [3001, "bye"], "name": "c", "timeoutMs": 500, "protocols": ["p1"], "headers": {"Origin": "x"}}},
		{"ws": {"name": "c", "waitClose": true, "close": true}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := steps[0].Req
	if r.Method != "POST" || r.Path != "/x?y=1" || !r.JSON || string(r.Body) != `{"1":[true,null],"b":1}` ||
		!reflect.DeepEqual(r.Headers, []Header{{"X-A", "1"}, {"X-N", "2"}, {"X-L", "a"}, {"X-L", "b"}}) ||
		!reflect.DeepEqual(r.RecordHeaders, []string{"Location"}) {
		t.Errorf("req = %+v", r)
	}
	if *steps[1].Sleep != 2.5 {
		t.Errorf("sleep = %v", *steps[1].Sleep)
	}
	if p := steps[2].Parallel; len(p) != 2 || p[0].Method != "GET" || p[1].Path != "/inc" || string(p[1].Body) != "\x00\x01\x02\xff" {
		t.Errorf("parallel = %+v", p)
	}
	if steps[3].Parallel == nil || len(steps[3].Parallel) != 0 {
		t.Errorf("empty parallel = %#v", steps[3].Parallel)
	}
	w := steps[4].WS
	wantSend := []WSMessage{{Data: []byte("a")}, {Binary: true, Data: []byte{1, 2, 3}}, {Data: []byte(`{"k":1}`)}, {Data: []byte("5")}}
	if w.Path != "/ws" || !reflect.DeepEqual(w.Send, wantSend) || w.Recv != 1 || *w.Close != (WSClose{3001, "bye"}) ||
		w.Name != "c" || w.TimeoutMs != 500 || !reflect.DeepEqual(w.Protocols, []string{"p1"}) {
		t.Errorf("ws = %+v", w)
	}
	if w := steps[5].WS; w.Path != "/" || w.Recv != 0 || *w.Close != (WSClose{1000, ""}) || !w.WaitClose || w.TimeoutMs != 10000 {
		t.Errorf("ws = %+v", w)
	}
}

func TestLoadCase_strict(t *testing.T) {
	tests := []struct{ steps, want string }{
		{`[{"req": {"path": "/"}}, {"reqq": {}}]`, `case bad: steps.json: step 1: unknown step type "reqq"`},
		{`[{"req": {"path": "/", "methd": "GET"}}]`, `step 0: req: unknown request field "methd"`},
		{`[{"req": {"path": "x"}}]`, `step 0: req: path must start with "/"`},
		{`[{"req": {"path": "/a b"}}]`, `step 0: req: path "/a b" has a character`},
		{`[{"req": {"path": "/", "body": "a", "json": 1}}]`, `step 0: req: more than one of`},
		{`[{"req": {"path": "/", "headers": {"X": {}}}}]`, `step 0: req: headers: X: want a string`},
		{`[{"req": {"path": "/", "method": "G T"}}]`, `not an HTTP token`},
		{`[{"sleep": "5"}]`, `step 0: sleep: want a number`},
		{`[{"req": {}, "sleep": 1}]`, `step 0: want an object with exactly one of`},
		{`[{"parallel": [{"path": "/"}, {"path": 1}]}]`, `step 0: parallel[1]: path: want a string`},
		{`[{"ws": {"path": "/ws", "recv": -1}}]`, `step 0: ws: recv: want a count`},
		{`[{"ws": {"path": "/ws", "close": [1006, ""]}}]`, `step 0: ws: close: 1006 is not a close code`},
		{`[{"ws": {"path": "/ws", "send": [{"base64": "AQ", "x": 1}]}}]`, `step 0: ws: send[0]: want {"base64"`},
		{`[{"ws": {"path": "/ws", "bogus": 1}}]`, `step 0: ws: unknown ws field "bogus"`},
		{`[{"req": {"path": "/"}}`, `case bad: steps.json: invalid JSON`},
		{`{"req": {}}`, `expected a JSON array of steps`},
	}
	for _, tt := range tests {
		dir := filepath.Join(t.TempDir(), "bad")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "steps.json"), []byte(tt.steps), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCase(dir)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadCase(%s) = %v, want an error containing %q", tt.steps, err, tt.want)
		}
	}
}

func TestLoadCase_noExpected(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "steps.json"), []byte(`[{"sleep": 1}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Expected != nil || c.Dir != dir || c.Name != filepath.Base(dir) {
		t.Errorf("LoadCase = %+v", c)
	}
}

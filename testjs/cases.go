// Package testjs replays conformance cases (Durable Object programs with
// requests, recorded on workerd) against a running server and compares the
// transcripts, as the Node tools in ../shared/anchor (replay.mjs and
// compare.mjs) do, so that Go tests need no Node at run time.
//
// A case is a folder with steps.json (the requests) and, once recorded,
// expected.json (the transcript workerd produced). LoadCase reads one,
// Replay plays its steps against a base URL and returns the transcript, and
// Compare lists the differences between two transcripts:
//
//	c, err := testjs.LoadCase("cases/counter")
//	got, err := testjs.Replay(ctx, "http://127.0.0.1:8787", c)
//	for _, d := range testjs.Compare(c.Expected, got) { t.Error(d) }
package testjs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// TranscriptFormat is the format tag of every transcript.
const TranscriptFormat = "do-conformance-transcript/1"

// Case is one conformance case folder.
type Case struct {
	Name     string      // the folder's base name
	Dir      string      // the folder, as given to LoadCase
	Steps    []Step      // steps.json
	Expected *Transcript // expected.json, nil when the case has none
}

// Step is one entry of steps.json. Exactly one of Req, Sleep, Parallel
// (possibly empty, never nil) and WS is set.
type Step struct {
	Req      *Request
	Sleep    *float64 // milliseconds
	Parallel []Request
	WS       *WSStep
}

// Request is a "req" step (or one item of a "parallel" step).
type Request struct {
	Method        string   // upper case; "GET" when the step has none
	Path          string   // starts with "/"; sent as is
	Headers       []Header // in the order of the file
	Body          []byte   // from body, json or bodyBase64; nil when none
	JSON          bool     // the body came from "json"
	RecordHeaders []string // response headers to record, as written
}

// Header is one request header line. Names keep their spelling.
type Header struct{ Name, Value string }

// WSStep is a "ws" step.
type WSStep struct {
	Path      string // starts with "/"; ignored when Name continues a kept connection
	Headers   []Header
	Protocols []string
	Send      []WSMessage
	Recv      int // messages to collect; defaults to len(Send)
	Close     *WSClose
	WaitClose bool
	Name      string  // "" when the step has no name
	TimeoutMs float64 // defaults to 10000
}

// WSMessage is one item of a ws step's "send" list.
type WSMessage struct {
	Binary bool   // a {"base64": ...} item: a binary frame
	Data   []byte // the frame payload (text: a string item, or any other JSON value serialised)
}

// WSClose is a ws step's "close": [code, reason] (true means [1000, ""]).
type WSClose struct {
	Code   int
	Reason string
}

// Transcript is what Replay returns and what expected.json holds. Each step
// is the compact JSON that replay.mjs writes for it: an object for req, sleep
// and ws steps, an array of request objects for parallel steps.
type Transcript struct {
	Format string            `json:"format"`
	Steps  []json.RawMessage `json:"steps"`
}

// Bytes returns the transcript exactly as replay.mjs prints it: one step a
// line, each line starting with a space.
func (t *Transcript) Bytes() []byte {
	var b bytes.Buffer
	format := t.Format
	if format == "" {
		format = TranscriptFormat
	}
	b.WriteString(`{"format":` + jsStringify(format) + `,"steps":[` + "\n")
	for i, s := range t.Steps {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteByte(' ')
		b.Write(s)
	}
	b.WriteString("\n]}\n")
	return b.Bytes()
}

// ParseTranscript reads a transcript ({"format":...,"steps":[...]} or a bare
// array of steps, as compare.mjs accepts). Steps are normalised to the
// compact form replay.mjs writes.
func ParseTranscript(data []byte) (*Transcript, error) {
	v, err := jsParse(string(data))
	if err != nil {
		return nil, err
	}
	t := &Transcript{Format: TranscriptFormat}
	steps, ok := v.([]any)
	if !ok {
		o, isObj := v.(*jsObject)
		if !isObj {
			return nil, errors.New("transcript: not an object or array")
		}
		sv, _ := o.get("steps")
		if steps, ok = sv.([]any); !ok {
			return nil, errors.New("transcript: no steps array")
		}
		if f, ok := o.get("format"); ok {
			if fs, ok := f.(string); ok {
				t.Format = fs
			}
		}
	}
	t.Steps = make([]json.RawMessage, len(steps))
	for i, s := range steps {
		t.Steps[i] = json.RawMessage(jsStringify(s))
	}
	return t, nil
}

// LoadCase reads the case in dir: steps.json (required) and expected.json
// (optional). Steps are decoded strictly: an unknown key, a wrong type or a
// value replay.mjs would reject is an error naming the case and the step.
func LoadCase(dir string) (*Case, error) {
	c := &Case{Name: filepath.Base(filepath.Clean(dir)), Dir: dir}
	data, err := os.ReadFile(filepath.Join(dir, "steps.json"))
	if err != nil {
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	}
	c.Steps, err = parseSteps(data)
	if err != nil {
		return nil, fmt.Errorf("case %s: steps.json: %w", c.Name, err)
	}
	data, err = os.ReadFile(filepath.Join(dir, "expected.json"))
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("case %s: %w", c.Name, err)
	default:
		if c.Expected, err = ParseTranscript(data); err != nil {
			return nil, fmt.Errorf("case %s: expected.json: %w", c.Name, err)
		}
	}
	return c, nil
}

// parseSteps decodes the contents of a steps.json file: a JSON array of
// steps, or {"steps": [...]}.
func parseSteps(data []byte) ([]Step, error) {
	v, err := jsParse(string(data))
	if err != nil {
		return nil, err
	}
	if o, ok := v.(*jsObject); ok {
		if s, ok := o.get("steps"); ok {
			v = s
		}
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New(`expected a JSON array of steps (or {"steps":[...]})`)
	}
	steps := make([]Step, len(list))
	for i, sv := range list {
		if steps[i], err = decodeStep(sv); err != nil {
			return nil, fmt.Errorf("step %d: %w", i, err)
		}
	}
	return steps, nil
}

func decodeStep(v any) (Step, error) {
	o, ok := v.(*jsObject)
	if !ok || len(o.order) != 1 {
		return Step{}, fmt.Errorf(`want an object with exactly one of "req", "sleep", "parallel", "ws"; got %s`, short(v))
	}
	k := o.order[0]
	val := o.vals[k]
	switch k {
	case "req":
		r, err := decodeRequest(val)
		if err != nil {
			return Step{}, fmt.Errorf("req: %w", err)
		}
		return Step{Req: r}, nil
	case "sleep":
		f, ok := val.(float64)
		if !ok || f < 0 || math.IsInf(f, 0) {
			return Step{}, fmt.Errorf("sleep: want a number of milliseconds >= 0, got %s", short(val))
		}
		return Step{Sleep: &f}, nil
	case "parallel":
		items, ok := val.([]any)
		if !ok {
			return Step{}, fmt.Errorf("parallel: want an array of requests, got %s", short(val))
		}
		reqs := make([]Request, len(items))
		for i, it := range items {
			if io, ok := it.(*jsObject); ok && len(io.order) == 1 && io.order[0] == "req" {
				it = io.vals["req"] // {"req": {...}} form
			}
			r, err := decodeRequest(it)
			if err != nil {
				return Step{}, fmt.Errorf("parallel[%d]: %w", i, err)
			}
			reqs[i] = *r
		}
		return Step{Parallel: reqs}, nil
	case "ws":
		w, err := decodeWS(val)
		if err != nil {
			return Step{}, fmt.Errorf("ws: %w", err)
		}
		return Step{WS: w}, nil
	}
	return Step{}, fmt.Errorf("unknown step type %q", k)
}

func decodeRequest(v any) (*Request, error) {
	o, ok := v.(*jsObject)
	if !ok {
		return nil, fmt.Errorf("want an object, got %s", short(v))
	}
	r := &Request{Method: "GET", Path: "/"}
	bodies := 0
	for _, k := range o.order {
		val := o.vals[k]
		switch k {
		case "method":
			s, ok := val.(string)
			if !ok {
				return nil, fmt.Errorf("method: want a string, got %s", short(val))
			}
			if s != "" {
				r.Method = strings.ToUpper(s)
			}
			if !isToken(r.Method) {
				return nil, fmt.Errorf("method %q is not an HTTP token", s)
			}
		case "path":
			if val == nil {
				continue // replay.mjs: path ?? "/"
			}
			s, ok := val.(string)
			if !ok {
				return nil, fmt.Errorf("path: want a string, got %s", short(val))
			}
			if !strings.HasPrefix(s, "/") {
				return nil, fmt.Errorf("path must start with \"/\": %q", s)
			}
			for _, c := range s {
				if c < 0x21 || c > 0xFF {
					return nil, fmt.Errorf("path %q has a character Node refuses to send (%U); percent-encode it", s, c)
				}
			}
			r.Path = s
		case "headers":
			hs, err := decodeHeaders(val)
			if err != nil {
				return nil, err
			}
			r.Headers = hs
		case "body":
			s, ok := val.(string)
			if !ok {
				return nil, fmt.Errorf("body: want a string, got %s", short(val))
			}
			r.Body = []byte(s)
			bodies++
		case "json":
			r.Body = []byte(jsStringify(val))
			r.JSON = true
			bodies++
		case "bodyBase64":
			s, ok := val.(string)
			if !ok {
				return nil, fmt.Errorf("bodyBase64: want a string, got %s", short(val))
			}
			b, err := decodeBase64(s)
			if err != nil {
				return nil, fmt.Errorf("bodyBase64: %w", err)
			}
			r.Body = b
			bodies++
		case "recordHeaders":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("recordHeaders: want an array of header names, got %s", short(val))
			}
			r.RecordHeaders = []string{}
			for _, h := range list {
				s, ok := h.(string)
				if !ok {
					return nil, fmt.Errorf("recordHeaders: want header names, got %s", short(h))
				}
				r.RecordHeaders = append(r.RecordHeaders, s)
			}
		default:
			return nil, fmt.Errorf("unknown request field %q", k)
		}
	}
	if bodies > 1 {
		return nil, errors.New(`more than one of "body", "json", "bodyBase64"`)
	}
	return r, nil
}

func decodeHeaders(v any) ([]Header, error) {
	o, ok := v.(*jsObject)
	if !ok {
		return nil, fmt.Errorf("headers: want an object, got %s", short(v))
	}
	var hs []Header
	for _, k := range o.keys() {
		if !isToken(k) {
			return nil, fmt.Errorf("headers: %q is not a valid header name", k)
		}
		vals := []any{o.vals[k]}
		if a, ok := o.vals[k].([]any); ok {
			vals = a
		}
		for _, hv := range vals {
			var s string
			switch hv := hv.(type) {
			case string:
				s = hv
			case float64, bool:
				s = jsString(hv)
			default:
				return nil, fmt.Errorf("headers: %s: want a string, got %s", k, short(hv))
			}
			for _, c := range s {
				if c != '\t' && (c < 0x20 || c == 0x7F || c > 0xFF) {
					return nil, fmt.Errorf("headers: %s: invalid character %U in value", k, c)
				}
			}
			hs = append(hs, Header{Name: k, Value: s})
		}
	}
	return hs, nil
}

func decodeWS(v any) (*WSStep, error) {
	o, ok := v.(*jsObject)
	if !ok {
		return nil, fmt.Errorf("want an object, got %s", short(v))
	}
	w := &WSStep{Path: "/", Recv: -1, TimeoutMs: 10000}
	for _, k := range o.order {
		val := o.vals[k]
		switch k {
		case "path":
			if val == nil {
				continue
			}
			s, ok := val.(string)
			if !ok || !strings.HasPrefix(s, "/") || strings.Contains(s, "#") {
				return nil, fmt.Errorf("path: want a string starting with \"/\" and without \"#\", got %s", short(val))
			}
			w.Path = s
		case "headers":
			hs, err := decodeHeaders(val)
			if err != nil {
				return nil, err
			}
			w.Headers = hs
		case "protocols":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("protocols: want an array of strings, got %s", short(val))
			}
			seen := map[string]bool{}
			for _, p := range list {
				s, ok := p.(string)
				if !ok || !isToken(s) || seen[s] {
					return nil, fmt.Errorf("protocols: invalid or duplicated subprotocol %s", short(p))
				}
				seen[s] = true
				w.Protocols = append(w.Protocols, s)
			}
		case "send":
			list, ok := val.([]any)
			if !ok {
				return nil, fmt.Errorf("send: want an array, got %s", short(val))
			}
			for i, it := range list {
				m, err := decodeWSMessage(it)
				if err != nil {
					return nil, fmt.Errorf("send[%d]: %w", i, err)
				}
				w.Send = append(w.Send, m)
			}
		case "recv":
			if val == nil {
				continue
			}
			f, ok := val.(float64)
			if !ok || f < 0 || f != math.Trunc(f) || f > 1e6 {
				return nil, fmt.Errorf("recv: want a count, got %s", short(val))
			}
			w.Recv = int(f)
		case "close":
			c, err := decodeClose(val)
			if err != nil {
				return nil, err
			}
			w.Close = c
		case "waitClose":
			b, ok := val.(bool)
			if !ok {
				return nil, fmt.Errorf("waitClose: want a boolean, got %s", short(val))
			}
			w.WaitClose = b
		case "name":
			s, ok := val.(string)
			if !ok || s == "" {
				return nil, fmt.Errorf("name: want a non-empty string, got %s", short(val))
			}
			w.Name = s
		case "timeoutMs":
			f, ok := val.(float64)
			if !ok || f <= 0 || math.IsInf(f, 0) {
				return nil, fmt.Errorf("timeoutMs: want a positive number, got %s", short(val))
			}
			w.TimeoutMs = f
		default:
			return nil, fmt.Errorf("unknown ws field %q", k)
		}
	}
	if w.Recv < 0 {
		w.Recv = len(w.Send)
	}
	return w, nil
}

func decodeWSMessage(v any) (WSMessage, error) {
	switch v := v.(type) {
	case string:
		return WSMessage{Data: []byte(v)}, nil
	case *jsObject:
		if b64, ok := v.get("base64"); ok {
			s, isStr := b64.(string)
			if len(v.order) != 1 || !isStr {
				return WSMessage{}, fmt.Errorf(`want {"base64": "<data>"}, got %s`, short(v))
			}
			data, err := decodeBase64(s)
			if err != nil {
				return WSMessage{}, fmt.Errorf("base64: %w", err)
			}
			return WSMessage{Binary: true, Data: data}, nil
		}
	}
	// replay.mjs sends any other value as its JSON text
	return WSMessage{Data: []byte(jsStringify(v))}, nil
}

func decodeClose(v any) (*WSClose, error) {
	switch v := v.(type) {
	case bool:
		if !v {
			return nil, nil
		}
		return &WSClose{Code: 1000}, nil
	case []any:
		c := &WSClose{}
		if len(v) < 1 || len(v) > 2 {
			return nil, fmt.Errorf("close: want [code, reason], got %s", short(v))
		}
		f, ok := v[0].(float64)
		if !ok || f != math.Trunc(f) || !validCloseCode(int(f)) {
			return nil, fmt.Errorf("close: %s is not a close code a client may send", short(v[0]))
		}
		c.Code = int(f)
		if len(v) == 2 && v[1] != nil {
			s, ok := v[1].(string)
			if !ok || len(s) > 123 {
				return nil, fmt.Errorf("close: want a reason string of at most 123 bytes, got %s", short(v[1]))
			}
			c.Reason = s
		}
		return c, nil
	}
	return nil, fmt.Errorf("close: want [code, reason] or true, got %s", short(v))
}

// validCloseCode is the ws package's isValidStatusCode.
func validCloseCode(code int) bool {
	return (code >= 1000 && code <= 1014 && code != 1004 && code != 1005 && code != 1006) ||
		(code >= 3000 && code <= 4999)
}

// decodeBase64 accepts what Node's Buffer.from(s, "base64") accepts for
// well-formed input: standard or URL alphabet, padding optional, whitespace
// ignored.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\f', '\v':
			return -1
		case '-':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if !strings.ContainsRune("!#$%&'*+-.^_`|~", rune(c)) {
			return false
		}
	}
	return true
}

// short renders a value for an error message.
func short(v any) string {
	s := jsStringify(v)
	if utf8.RuneCountInString(s) > 80 {
		s = string([]rune(s)[:77]) + "..."
	}
	return s
}

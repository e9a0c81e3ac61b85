package workflows

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrInfo is a step's or a run's error.
type ErrInfo struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

// Request is one call to an instance's cell, as JSON (it crosses the
// fleet's peer protocol when another node owns the cell).
type Request struct {
	// Op: create, status, pause, resume, terminate, restart, event (from
	// the binding); step, suspend, finish, ended (from a run, with its
	// Lease); mock, inspect, dispose (from cloudflare:test's workflow
	// introspection, introspect.go).
	Op       string   `json:"op"`
	Workflow string   `json:"workflow,omitempty"`
	Class    string   `json:"class,omitempty"`
	ID       string   `json:"id,omitempty"`
	Params   []byte   `json:"params,omitempty"`  // v8
	Type     string   `json:"type,omitempty"`    // event
	Payload  []byte   `json:"payload,omitempty"` // event, v8
	Key      string   `json:"key,omitempty"`     // step
	Value    []byte   `json:"value,omitempty"`   // step, v8
	Error    *ErrInfo `json:"error,omitempty"`   // step, finish
	Until    int64    `json:"until,omitempty"`   // suspend
	Wait     string   `json:"wait,omitempty"`    // suspend: the event type awaited
	Consume  int64    `json:"consume,omitempty"` // step: the event it took
	Output   []byte   `json:"output,omitempty"`  // finish, v8
	Lease    string   `json:"lease,omitempty"`
	Mock     string   `json:"mock,omitempty"`  // mock: set, result, error, timeout, event
	Name     string   `json:"name,omitempty"`  // mock: the step's name, for errors
	Times    int64    `json:"times,omitempty"` // mock: error, timeout: that many attempts (0: every one)
}

// Answer is a cell's answer.
type Answer struct {
	Fail   string    `json:"fail,omitempty"` // the request failed
	Status string    `json:"status,omitempty"`
	Output []byte    `json:"output,omitempty"`
	Error  *ErrInfo  `json:"error,omitempty"`
	Stop   bool      `json:"stop,omitempty"` // the run must suspend (paused, terminated, superseded)
	Step   *StepInfo `json:"step,omitempty"` // inspect: the step asked for, once it has run

	retry bool // in the cell: a run ended without reporting; run again shortly
}

// StepInfo is a finished step's record (inspect).
type StepInfo struct {
	Value []byte   `json:"value,omitempty"` // v8
	Error *ErrInfo `json:"error,omitempty"`
}

const maxRequest = 1 << 20

var ops = map[string]bool{"create": true, "status": true, "pause": true, "resume": true, "terminate": true, "restart": true,
	"event": true, "step": true, "suspend": true, "finish": true, "ended": true,
	"mock": true, "inspect": true, "dispose": true}

// DecodeRequest decodes and validates one request.
func DecodeRequest(b []byte) (*Request, error) {
	if len(b) > maxRequest {
		return nil, fmt.Errorf("workflow request of %d bytes: the limit is %d", len(b), maxRequest)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Request
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("workflow request: %w", err)
	}
	if dec.More() {
		return nil, errors.New("workflow request: trailing data")
	}
	// One form for "none": empty bytes decode as absent ones, as
	// EncodeRequest writes them (omitempty), so a request re-encoded and
	// decoded again is the same (FuzzDecodeRequest found "value":"").
	for _, b := range []*[]byte{&r.Params, &r.Payload, &r.Value, &r.Output} {
		if len(*b) == 0 {
			*b = nil
		}
	}
	if !ops[r.Op] {
		return nil, fmt.Errorf("workflow request: unknown op %q", r.Op)
	}
	if len(r.ID) > 100 || len(r.Workflow) > 64 || len(r.Class) > 256 || len(r.Key) > 1024 || len(r.Type) > 256 || len(r.Wait) > 256 || len(r.Name) > 1024 || len(r.Mock) > 16 {
		return nil, errors.New("workflow request: a name is too long")
	}
	if r.Op == "create" && (r.ID == "" || r.Workflow == "" || r.Class == "") {
		return nil, errors.New("workflow request: create needs an id, a workflow and a class")
	}
	if r.Op == "mock" && !mockKinds[r.Mock] {
		return nil, fmt.Errorf("workflow request: unknown mock %q", r.Mock)
	}
	if r.Times < 0 || r.Times > 1000 {
		return nil, fmt.Errorf("workflow request: times %d: want 0 to 1000", r.Times)
	}
	return &r, nil
}

var mockKinds = map[string]bool{"set": true, "result": true, "error": true, "timeout": true, "event": true}

// EncodeRequest encodes r.
func EncodeRequest(r *Request) ([]byte, error) { return json.Marshal(r) }

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
	// Lease).
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
}

// Answer is a cell's answer.
type Answer struct {
	Fail   string   `json:"fail,omitempty"` // the request failed
	Status string   `json:"status,omitempty"`
	Output []byte   `json:"output,omitempty"`
	Error  *ErrInfo `json:"error,omitempty"`
	Stop   bool     `json:"stop,omitempty"` // the run must suspend (paused, terminated, superseded)

	retry bool // in the cell: a run ended without reporting; run again shortly
}

const maxRequest = 1 << 20

var ops = map[string]bool{"create": true, "status": true, "pause": true, "resume": true, "terminate": true, "restart": true,
	"event": true, "step": true, "suspend": true, "finish": true, "ended": true}

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
	if !ops[r.Op] {
		return nil, fmt.Errorf("workflow request: unknown op %q", r.Op)
	}
	if len(r.ID) > 100 || len(r.Workflow) > 64 || len(r.Class) > 256 || len(r.Key) > 1024 || len(r.Type) > 256 || len(r.Wait) > 256 {
		return nil, errors.New("workflow request: a name is too long")
	}
	if r.Op == "create" && (r.ID == "" || r.Workflow == "" || r.Class == "") {
		return nil, errors.New("workflow request: create needs an id, a workflow and a class")
	}
	return &r, nil
}

// EncodeRequest encodes r.
func EncodeRequest(r *Request) ([]byte, error) { return json.Marshal(r) }

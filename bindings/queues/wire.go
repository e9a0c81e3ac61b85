package queues

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// The requests a queue's cell answers (Serve), as JSON: they cross the
// fleet's peer protocol when another node owns the cell, so Decode is
// strict and bounded (fuzzed).

// Message is one stored message.
type Message struct {
	ID          string `json:"id"`
	Body        []byte `json:"body"`
	ContentType string `json:"contentType"` // text, json, bytes or v8
	TimestampMs int64  `json:"ts"`
	Attempts    int64  `json:"attempts,omitempty"`
	DelayMs     int64  `json:"delayMs,omitempty"` // send: not visible before now + DelayMs
}

// Retry is one message to deliver again after DelayMs.
type Retry struct {
	ID      string `json:"id"`
	DelayMs int64  `json:"delayMs"`
}

// Request is one call to a queue's cell.
type Request struct {
	// Op is "send" (store Messages), "settle" (a delivery's outcome:
	// delete Acks and Dead, make Retries visible again) or "kick" (the
	// queue has a consumer in this process: arm its alarm).
	Op       string    `json:"op"`
	Queue    string    `json:"queue"`
	Messages []Message `json:"messages,omitempty"`
	Acks     []string  `json:"acks,omitempty"`
	Retries  []Retry   `json:"retries,omitempty"`
	Dead     []string  `json:"dead,omitempty"`
	// Lease is the token of the delivery a settle reports.
	Lease string `json:"lease,omitempty"`
}

// Response is a cell's answer.
type Response struct {
	Error string `json:"error,omitempty"`
	// A send's answer: the queue's backlog before it (workerd's
	// QueueSendResponse metrics).
	BacklogCount int64 `json:"backlogCount,omitempty"`
	BacklogBytes int64 `json:"backlogBytes,omitempty"`
	OldestMs     int64 `json:"oldestMs,omitempty"`
}

// Limits of a request: Cloudflare's 100 messages of a batch, 128 KB each
// (with room for the JSON encoding of the bytes).
const (
	maxMessages   = 100
	maxBodyBytes  = 128 * 1000
	maxRequest    = 2*maxMessages*maxBodyBytes + 64<<10
	maxQueueName  = 63
	validContents = "text json bytes v8"
)

var contentTypes = map[string]bool{"text": true, "json": true, "bytes": true, "v8": true}

// EncodeRequest encodes r.
func EncodeRequest(r *Request) ([]byte, error) { return json.Marshal(r) }

// DecodeRequest decodes and validates one request.
func DecodeRequest(b []byte) (*Request, error) {
	if len(b) > maxRequest {
		return nil, fmt.Errorf("queue request of %d bytes: the limit is %d", len(b), maxRequest)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Request
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("queue request: %w", err)
	}
	if dec.More() {
		return nil, errors.New("queue request: trailing data")
	}
	// One form for "none": an empty list decodes as an absent one, as
	// EncodeRequest writes it (omitempty), so a request re-encoded and
	// decoded again is the same (FuzzDecodeRequest found "acks":[]).
	r.Messages = nilIfEmpty(r.Messages)
	r.Acks = nilIfEmpty(r.Acks)
	r.Retries = nilIfEmpty(r.Retries)
	r.Dead = nilIfEmpty(r.Dead)
	switch r.Op {
	case "send", "settle", "kick":
	default:
		return nil, fmt.Errorf("queue request: unknown op %q", r.Op)
	}
	if r.Queue == "" || len(r.Queue) > maxQueueName {
		return nil, fmt.Errorf("queue request: queue name %q: want 1 to %d bytes", r.Queue, maxQueueName)
	}
	if len(r.Messages) > maxMessages || len(r.Acks)+len(r.Retries)+len(r.Dead) > maxMessages {
		return nil, fmt.Errorf("queue request: more than %d messages", maxMessages)
	}
	for _, m := range r.Messages {
		switch {
		case m.ID == "" || len(m.ID) > 64:
			return nil, fmt.Errorf("queue request: message id %q", m.ID)
		case len(m.Body) > maxBodyBytes:
			return nil, fmt.Errorf("queue request: message of %d bytes: the limit is %d", len(m.Body), maxBodyBytes)
		case !contentTypes[m.ContentType]:
			return nil, fmt.Errorf("queue request: content type %q: want one of %s", m.ContentType, validContents)
		case m.DelayMs < 0 || m.DelayMs > maxDelayMs:
			return nil, fmt.Errorf("queue request: delay of %d ms", m.DelayMs)
		}
	}
	for _, x := range r.Retries {
		if x.DelayMs < 0 || x.DelayMs > maxDelayMs {
			return nil, fmt.Errorf("queue request: retry delay of %d ms", x.DelayMs)
		}
	}
	return &r, nil
}

// maxDelayMs is Cloudflare's largest delay, 12 hours.
const maxDelayMs = 12 * 3600 * 1000

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

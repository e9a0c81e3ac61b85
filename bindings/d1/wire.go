package d1

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// The bytes between a D1 binding and its database's cell, which may be on
// another node (the peer protocol carries them as a call's arguments and
// result): one JSON value each way. A request is
//
//	{"batch":[{"sql":"...","params":[<value>...]}...]}  or  {"exec":"<script>"}
//
// and its answer
//
//	{"results":[<result>...],"duration":<ms>}  or  {"count":<n>,"duration":<ms>}  or  {"error":"D1_ERROR: ..."}
//
// A SQL value keeps its type: null, {"i":"<int64>"}, {"f":"<float64>"}
// (strconv's form, so that infinities survive), {"s":"<text>"} or
// {"b":"<base64>"}.

// Request is what a binding asks of its database: a batch of statements
// (one for prepare().run() and the like) or an exec script.
type Request struct {
	Batch []Statement `json:"batch,omitempty"`
	Exec  *string     `json:"exec,omitempty"`
}

// Response is a database's answer to a Request.
type Response struct {
	Results  []*Result `json:"results,omitempty"`
	Count    *int      `json:"count,omitempty"`
	Duration float64   `json:"duration"`
	Error    string    `json:"error,omitempty"`
}

// Err returns the answer's error, if it is one.
func (r *Response) Err() error {
	if r.Error != "" {
		return &Error{Msg: r.Error}
	}
	return nil
}

// value is one SQL value on the wire.
type value struct {
	I *string `json:"i,omitempty"`
	F *string `json:"f,omitempty"`
	S *string `json:"s,omitempty"`
	B *string `json:"b,omitempty"`
}

func encodeValue(v any) (*value, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case int64:
		s := strconv.FormatInt(x, 10)
		return &value{I: &s}, nil
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		return &value{F: &s}, nil
	case string:
		return &value{S: &x}, nil
	case []byte:
		s := base64.StdEncoding.EncodeToString(x)
		return &value{B: &s}, nil
	}
	return nil, fmt.Errorf("d1: a value of type %T", v)
}

var errValue = errors.New("d1: a value needs exactly one of i, f, s and b")

func decodeValue(v *value) (any, error) {
	if v == nil {
		return nil, nil
	}
	n := 0
	for _, p := range []*string{v.I, v.F, v.S, v.B} {
		if p != nil {
			n++
		}
	}
	if n != 1 {
		return nil, errValue
	}
	switch {
	case v.I != nil:
		return strconv.ParseInt(*v.I, 10, 64)
	case v.F != nil:
		f, err := strconv.ParseFloat(*v.F, 64)
		if err != nil || math.IsNaN(f) {
			return nil, fmt.Errorf("d1: bad float %q", *v.F)
		}
		return f, nil
	case v.S != nil:
		return *v.S, nil
	}
	return base64.StdEncoding.Strict().DecodeString(*v.B)
}

func encodeValues(vs []any) ([]*value, error) {
	out := make([]*value, len(vs))
	for i, v := range vs {
		w, err := encodeValue(v)
		if err != nil {
			return nil, err
		}
		out[i] = w
	}
	return out, nil
}

func decodeValues(ws []*value) ([]any, error) {
	out := make([]any, len(ws))
	for i, w := range ws {
		v, err := decodeValue(w)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// wireStatement and wireResult are Statement and Result on the wire.
type wireStatement struct {
	SQL    string   `json:"sql"`
	Params []*value `json:"params"`
}

type wireResult struct {
	Columns     []string   `json:"columns"`
	Rows        [][]*value `json:"rows"`
	Changes     int64      `json:"changes"`
	LastRowID   int64      `json:"last_row_id"`
	RowsRead    int64      `json:"rows_read"`
	RowsWritten int64      `json:"rows_written"`
	ChangedDB   bool       `json:"changed_db"`
	SizeAfter   int64      `json:"size_after"`
}

type wireRequest struct {
	Batch []wireStatement `json:"batch,omitempty"`
	Exec  *string         `json:"exec,omitempty"`
}

type wireResponse struct {
	Results  []wireResult `json:"results,omitempty"`
	Count    *int         `json:"count,omitempty"`
	Duration float64      `json:"duration"`
	Error    string       `json:"error,omitempty"`
}

// EncodeRequest encodes r for the database's cell.
func EncodeRequest(r *Request) ([]byte, error) {
	w := wireRequest{Exec: r.Exec}
	for _, st := range r.Batch {
		ps, err := encodeValues(params(st.Params))
		if err != nil {
			return nil, err
		}
		w.Batch = append(w.Batch, wireStatement{SQL: st.SQL, Params: ps})
	}
	return json.Marshal(&w)
}

// DecodeRequest decodes a request strictly: one JSON value, no unknown
// fields, exactly one of batch (with at least one statement) and exec.
func DecodeRequest(b []byte) (*Request, error) {
	var w wireRequest
	if err := decodeStrict(b, &w); err != nil {
		return nil, fmt.Errorf("decode d1 request: %w", err)
	}
	if (len(w.Batch) == 0) == (w.Exec == nil) {
		return nil, errors.New("decode d1 request: want exactly one of batch and exec")
	}
	r := &Request{Exec: w.Exec}
	for _, st := range w.Batch {
		ps, err := decodeValues(st.Params)
		if err != nil {
			return nil, fmt.Errorf("decode d1 request: %w", err)
		}
		r.Batch = append(r.Batch, Statement{SQL: st.SQL, Params: ps})
	}
	return r, nil
}

// EncodeResponse encodes r for the binding.
func EncodeResponse(r *Response) ([]byte, error) {
	w := wireResponse{Count: r.Count, Duration: r.Duration, Error: r.Error}
	for _, res := range r.Results {
		wr := wireResult{Columns: res.Columns, Rows: make([][]*value, len(res.Rows)), Changes: res.Changes, LastRowID: res.LastRowID,
			RowsRead: res.RowsRead, RowsWritten: res.RowsWritten, ChangedDB: res.ChangedDB, SizeAfter: res.SizeAfter}
		if wr.Columns == nil {
			wr.Columns = []string{}
		}
		for i, row := range res.Rows {
			vs, err := encodeValues(row)
			if err != nil {
				return nil, err
			}
			wr.Rows[i] = vs
		}
		w.Results = append(w.Results, wr)
	}
	return json.Marshal(&w)
}

// DecodeResponse decodes an answer strictly: exactly one of results, count
// and error; every row as long as the columns.
func DecodeResponse(b []byte) (*Response, error) {
	var w wireResponse
	if err := decodeStrict(b, &w); err != nil {
		return nil, fmt.Errorf("decode d1 response: %w", err)
	}
	kinds := 0
	if len(w.Results) > 0 {
		kinds++
	}
	if w.Count != nil {
		kinds++
	}
	if w.Error != "" {
		kinds++
	}
	if kinds != 1 {
		return nil, errors.New("decode d1 response: want exactly one of results, count and error")
	}
	if math.IsNaN(w.Duration) || w.Duration < 0 {
		return nil, errors.New("decode d1 response: bad duration")
	}
	r := &Response{Count: w.Count, Duration: w.Duration, Error: w.Error}
	for _, wr := range w.Results {
		res := &Result{Columns: wr.Columns, Rows: make([][]any, len(wr.Rows)), Changes: wr.Changes, LastRowID: wr.LastRowID,
			RowsRead: wr.RowsRead, RowsWritten: wr.RowsWritten, ChangedDB: wr.ChangedDB, SizeAfter: wr.SizeAfter}
		for i, row := range wr.Rows {
			if len(row) != len(wr.Columns) {
				return nil, fmt.Errorf("decode d1 response: a row of %d values for %d columns", len(row), len(wr.Columns))
			}
			vs, err := decodeValues(row)
			if err != nil {
				return nil, fmt.Errorf("decode d1 response: %w", err)
			}
			res.Rows[i] = vs
		}
		r.Results = append(r.Results, res)
	}
	return r, nil
}

// decodeStrict decodes one JSON value into v; unknown fields and trailing
// data are errors.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

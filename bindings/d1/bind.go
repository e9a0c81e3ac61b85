package d1

import (
	_ "embed"
	"fmt"

	"github.com/cellhost/cellhost/third_party/goja"
)

//go:embed d1.js
var d1JS string

var d1Program = goja.MustCompile("cellhost:d1", d1JS, true)

// Send carries one encoded Request to the database's cell and calls done
// with its encoded Response (or the error that kept it from an answer) on
// the runtime's goroutine, exactly once. host.CellCaller.CallCell with
// Class and the database id is one.
type Send func(req []byte, done func(resp []byte, err error))

// Bind sets env[name] to a D1Database object of rt whose queries send
// goes to its database. Call it on rt's goroutine (host.Config.BindInternal).
// Every query's promise settles when the database's answer arrives.
func Bind(rt *goja.Runtime, env *goja.Object, name string, send Send) error {
	fv, err := rt.RunProgram(d1Program)
	if err != nil {
		return fmt.Errorf("bind d1 %s: %w", name, err)
	}
	fn, _ := goja.AssertFunction(fv)
	native := rt.NewObject()
	fail := func(err error) { panic(rt.NewGoError(err)) } // d1.js rethrows it as an Error with D1's text
	statements := func(v goja.Value) []Statement {
		var raw []map[string]any
		if err := rt.ExportTo(v, &raw); err != nil {
			fail(err)
		}
		out := make([]Statement, len(raw))
		for i, r := range raw {
			q, _ := r["sql"].(string)
			params, _ := r["params"].([]any)
			for j, p := range params {
				if arr, ok := p.([]any); ok { // a blob, as bytes
					b := make([]byte, len(arr))
					for k, x := range arr {
						n, _ := x.(int64)
						b[k] = byte(n)
					}
					params[j] = b
				}
			}
			out[i] = Statement{SQL: q, Params: params}
		}
		return out
	}
	toJS := func(res *Result, ms float64) goja.Value {
		o := rt.NewObject()
		cols := make([]any, len(res.Columns))
		for i, c := range res.Columns {
			cols[i] = c
		}
		_ = o.Set("columns", rt.NewArray(cols...))
		rows := make([]any, len(res.Rows))
		for i, r := range res.Rows {
			vals := make([]any, len(r))
			for j, v := range r {
				if b, ok := v.([]byte); ok {
					nums := make([]any, len(b))
					for k, x := range b {
						nums[k] = int64(x)
					}
					vals[j] = rt.NewArray(nums...)
				} else {
					vals[j] = v
				}
			}
			rows[i] = rt.NewArray(vals...)
		}
		_ = o.Set("rows", rt.NewArray(rows...))
		meta := rt.NewObject()
		_ = meta.Set("served_by", "cellhost.db")
		_ = meta.Set("duration", ms)
		_ = meta.Set("changes", res.Changes)
		_ = meta.Set("last_row_id", res.LastRowID)
		_ = meta.Set("changed_db", res.ChangedDB)
		_ = meta.Set("size_after", res.SizeAfter)
		_ = meta.Set("rows_read", res.RowsRead)
		_ = meta.Set("rows_written", res.RowsWritten)
		_ = o.Set("meta", meta)
		return o
	}
	// ask sends r and returns a promise of answer(the response).
	ask := func(r *Request, answer func(*Response) goja.Value) goja.Value {
		req, err := EncodeRequest(r)
		if err != nil {
			fail(err)
		}
		p, resolve, reject := rt.NewPromise()
		send(req, func(b []byte, err error) {
			var res *Response
			if err == nil {
				res, err = DecodeResponse(b)
			}
			if err == nil {
				err = res.Err()
			}
			if err != nil {
				_ = reject(rt.NewGoError(err))
				return
			}
			_ = resolve(answer(res))
		})
		return rt.ToValue(p)
	}
	_ = native.Set("query", func(v goja.Value) goja.Value {
		return ask(&Request{Batch: statements(v)}, func(res *Response) goja.Value {
			out := make([]any, len(res.Results))
			for i, r := range res.Results {
				out[i] = toJS(r, res.Duration)
			}
			return rt.NewArray(out...)
		})
	})
	_ = native.Set("exec", func(script string) goja.Value {
		return ask(&Request{Exec: &script}, func(res *Response) goja.Value {
			o := rt.NewObject()
			_ = o.Set("count", *res.Count)
			_ = o.Set("duration", res.Duration)
			return o
		})
	})
	v, err := fn(goja.Undefined(), native)
	if err != nil {
		return fmt.Errorf("bind d1 %s: %w", name, err)
	}
	return env.Set(name, v)
}

package d1

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/dop251/goja"
)

//go:embed d1.js
var d1JS string

var d1Program = goja.MustCompile("cellhost:d1", d1JS, true)

// Bind sets env[name] to a D1Database object of rt backed by d. Call it on
// rt's goroutine (host.Config.Bind). Queries run synchronously on that
// goroutine; the methods return promises, as D1's do.
func Bind(rt *goja.Runtime, env *goja.Object, name string, d *Database) error {
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
	_ = native.Set("query", func(v goja.Value) goja.Value {
		sts := statements(v)
		start := time.Now()
		res, err := d.Batch(context.Background(), sts)
		if err != nil {
			fail(err)
		}
		ms := float64(time.Since(start).Microseconds()) / 1000
		out := make([]any, len(res))
		for i, r := range res {
			out[i] = toJS(r, ms)
		}
		return rt.NewArray(out...)
	})
	_ = native.Set("exec", func(script string) goja.Value {
		start := time.Now()
		n, err := d.Exec(context.Background(), script)
		if err != nil {
			fail(err)
		}
		o := rt.NewObject()
		_ = o.Set("count", n)
		_ = o.Set("duration", float64(time.Since(start).Microseconds())/1000)
		return o
	})
	v, err := fn(goja.Undefined(), native)
	if err != nil {
		return fmt.Errorf("bind d1 %s: %w", name, err)
	}
	return env.Set(name, v)
}

// Package workflows is the "workflows" binding plugin: Cloudflare
// Workflows built on cells. Each instance is an internal cell of class
// cellhost.Workflow (key "<workflow>/<instance id>"), holding its status,
// params, every finished step's result (V8-serialised), its sleeps and
// the events sent to it. The cell's stored alarm runs the instance: a run
// calls the class's run(event, step) and replays it, step.do returning the
// stored result of a step that finished, so a replay after a sleep, an
// event, a restart or a kill -9 (or on another node: the alarm is in the
// wake index) skips finished work. step.sleep and step.waitForEvent end a
// run; the alarm (the sleep's end, the event's arrival or its timeout)
// starts the next.
//
//	"workflows": [{"name": "orders", "binding": "ORDERS", "class_name": "OrderWorkflow"}]
package workflows

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// ConfigKey is the wrangler configuration key of workflows.
const ConfigKey = "workflows"

// Class is the internal cell class of a workflow instance.
const Class = "cellhost.Workflow"

// Config is one workflows entry.
type Config struct {
	Name  string // the workflow's name
	Class string // class_name: the exported WorkflowEntrypoint
}

func init() {
	binding.Register(&binding.Plugin{Key: ConfigKey, Kind: "Workflow", Decode: decode, Prepare: prepare,
		Classes: []binding.Class{{Name: Class, Serve: serve, Alarm: alarm}}})
}

var namePattern = regexp.MustCompile(`^[a-zA-Z0-9_][a-zA-Z0-9-_]{0,63}$`)

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var list []struct {
		Name       string `json:"name"`
		Binding    string `json:"binding"`
		ClassName  string `json:"class_name"`
		ScriptName string `json:"script_name"`
	}
	if err := d.List(ConfigKey, raw, &list); err != nil {
		return nil, err
	}
	var out []binding.Entry
	for i, w := range list {
		switch {
		case w.Binding == "" || w.Name == "" || w.ClassName == "":
			return nil, fmt.Errorf("workflows[%d] needs \"name\", \"binding\" and \"class_name\"", i)
		case !namePattern.MatchString(w.Name):
			return nil, fmt.Errorf("workflows[%d]: name %q: want up to 64 letters, digits, '-' or '_'", i, w.Name)
		case w.ScriptName != "" && w.ScriptName != d.Worker:
			return nil, fmt.Errorf("workflows[%d] (%s) sets script_name %q: workflows of another worker are not supported", i, w.Binding, w.ScriptName)
		}
		out = append(out, binding.Entry{Name: w.Binding, Show: w.Name + " (" + w.ClassName + ")", Config: Config{Name: w.Name, Class: w.ClassName}})
	}
	return out, nil
}

//go:embed workflows.js
var workflowsJS string

var workflowsProgram = goja.MustCompile("cellhost:workflows", workflowsJS, true)

// glue is workflows.js's functions in one runtime, with the runtime's
// CellCaller (the shard's), which a run uses to reach its cell.
type glue struct {
	binding, run goja.Callable
	cells        binding.CellCaller
	classes      map[string]string // workflow name -> class
}

// glueSym keys a runtime's glue on its global object (out of reach of
// string keys), so that it goes with the runtime.
var glueSym = goja.NewSymbol("cellhost.workflows")

func glueOf(rt *goja.Runtime) *glue {
	v := rt.GlobalObject().GetSymbol(glueSym)
	if v == nil {
		return nil
	}
	g, _ := v.Export().(*glue)
	return g
}

func prepare(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	return func(rt *goja.Runtime, env *goja.Object, cells binding.CellCaller) error {
		g := &glue{cells: cells, classes: map[string]string{}}
		fv, err := rt.RunProgram(workflowsProgram)
		if err != nil {
			return err
		}
		fn, _ := goja.AssertFunction(fv)
		native := rt.NewObject()
		_ = native.Set("call", func(wf, id string, req *goja.Object) goja.Value {
			r := requestOf(rt, req)
			r.Workflow, r.ID, r.Class = wf, id, g.classes[wf]
			return call(rt, cells, r)
		})
		o, err := fn(goja.Undefined(), native)
		if err != nil {
			return err
		}
		obj := o.ToObject(rt)
		g.binding, _ = goja.AssertFunction(obj.Get("binding"))
		g.run, _ = goja.AssertFunction(obj.Get("run"))
		for _, e := range entries {
			c := e.Config.(Config)
			g.classes[c.Name] = c.Class
			v, err := g.binding(goja.Undefined(), rt.ToValue(c.Name))
			if err != nil {
				return err
			}
			if err := env.Set(e.Name, v); err != nil {
				return err
			}
		}
		return rt.GlobalObject().DefineDataPropertySymbol(glueSym, rt.ToValue(g), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}, nil
}

// requestOf reads a request made by workflows.js; its values are
// V8-serialised.
func requestOf(rt *goja.Runtime, o *goja.Object) *Request {
	str := func(k string) string {
		if v := o.Get(k); v != nil && !goja.IsUndefined(v) {
			return v.String()
		}
		return ""
	}
	ser := func(k string) []byte {
		v := o.Get(k)
		if v == nil {
			v = goja.Undefined()
		}
		b, err := clone.Serialize(rt, v)
		if err != nil {
			jserr.Throw(rt, err)
		}
		return b
	}
	r := &Request{Op: str("op"), Key: str("key"), Type: str("type"), Wait: str("wait"), Mock: str("mock"), Name: str("name")}
	if v := o.Get("times"); v != nil && !goja.IsUndefined(v) {
		r.Times = v.ToInteger()
	}
	if v := o.Get("until"); v != nil && !goja.IsUndefined(v) {
		r.Until = v.ToInteger()
	}
	if v := o.Get("consume"); v != nil && !goja.IsUndefined(v) {
		r.Consume = v.ToInteger()
	}
	if e := o.Get("error"); e != nil && !goja.IsUndefined(e) {
		eo := e.ToObject(rt)
		r.Error = &ErrInfo{Name: eo.Get("name").String(), Message: eo.Get("message").String()}
	}
	switch r.Op {
	case "create":
		r.Params = ser("params")
	case "event":
		r.Payload = ser("payload")
	case "step":
		if r.Error == nil {
			r.Value = ser("value")
		}
	case "finish":
		if r.Error == nil {
			r.Output = ser("output")
		}
	case "mock":
		if r.Mock == "event" {
			r.Payload = ser("payload")
		} else {
			r.Value = ser("value")
		}
	}
	return r
}

// call sends r to its instance's cell and returns a promise of the
// answer as a JS object ({status, output, error, stop}).
func call(rt *goja.Runtime, cells binding.CellCaller, r *Request) goja.Value {
	b, err := EncodeRequest(r)
	if err != nil {
		panic(rt.NewGoError(err))
	}
	p, resolve, reject := rt.NewPromise()
	cells.CallCell(Class, r.Workflow+"/"+r.ID, b, func(resp []byte, err error) {
		var a Answer
		if err == nil {
			err = json.Unmarshal(resp, &a)
		}
		if err == nil && a.Fail != "" {
			err = fmt.Errorf("%s", a.Fail)
		}
		if err != nil {
			e, nerr := rt.New(rt.Get("Error"), rt.ToValue(err.Error()))
			if nerr != nil {
				_ = reject(rt.NewGoError(err))
				return
			}
			_ = reject(e)
			return
		}
		o := rt.NewObject()
		if a.Status != "" {
			_ = o.Set("status", a.Status)
		}
		if a.Error != nil {
			eo := rt.NewObject()
			_ = eo.Set("name", a.Error.Name)
			_ = eo.Set("message", a.Error.Message)
			_ = o.Set("error", eo)
		}
		if len(a.Output) > 0 {
			v, err := clone.Deserialize(rt, a.Output)
			if err == nil && !goja.IsUndefined(v) {
				_ = o.Set("output", v)
			}
		}
		if a.Stop {
			_ = o.Set("stop", true)
		}
		if a.Step != nil {
			so := rt.NewObject()
			if a.Step.Error != nil {
				eo := rt.NewObject()
				_ = eo.Set("name", a.Step.Error.Name)
				_ = eo.Set("message", a.Step.Error.Message)
				_ = so.Set("error", eo)
			} else if len(a.Step.Value) > 0 {
				v, err := clone.Deserialize(rt, a.Step.Value)
				if err != nil {
					_ = reject(rt.NewGoError(err))
					return
				}
				_ = so.Set("value", v)
			}
			_ = o.Set("step", so)
		}
		_ = resolve(o)
	})
	return rt.ToValue(p)
}

package workerdtests

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

// DefaultCompatDate is the compatibility date workerd's wd_test rule gives
// a test's default variant (build/wd_test.bzl: --compat-date=2000-01-01);
// the test's own compatibilityFlags apply on top.
const DefaultCompatDate = "2000-01-01"

// Module is one entry of a worker's modules list.
type Module struct {
	Name string // the module's name in workerd's registry ("worker")
	Kind string // esModule, commonJsModule, text, data, json, wasm
	File string // the embedded file, relative to the config
	// Source is an inline module's text (File is then a name made up for it).
	Source string
}

// Binding is one env binding of the tested worker.
type Binding struct {
	Name  string
	Kind  string // text, json, kvNamespace, r2Bucket, durableObjectNamespace, service, ...
	Value string // the text or JSON; the namespace, bucket, class or service name
	Entry string // a service binding's entrypoint
}

// Suite is what a .wd-test asks of its tested worker.
type Suite struct {
	Service  string // the tested worker's service name
	Modules  []Module
	Flags    []string
	Bindings []Binding
	// Unsupported says why cellhost cannot run this file ("" when it can):
	// a binding kind it lacks, a second worker, a non-ES main module.
	Unsupported string
}

// SupportedBindings are the binding kinds the runner maps onto cellhost's
// (wrangler configuration keys).
var SupportedBindings = map[string]bool{"text": true, "json": true, "kvNamespace": true, "r2Bucket": true,
	"durableObjectNamespace": true, "service": true}

// ReadSuite reads the tested worker of a parsed .wd-test; base is the
// config's file name (the tested worker is the one whose first module has
// the config's base name, else the first worker service).
func ReadSuite(f *File, base string) (*Suite, error) {
	var cfg Struct
	for _, n := range f.Order {
		if s, ok := f.Consts[n].(Struct); ok && s.Get("services") != nil {
			cfg = s
			break
		}
	}
	if cfg == nil {
		return nil, fmt.Errorf("no constant with services")
	}
	deref := func(v Value) Value {
		for i := 0; i < 8; i++ {
			r, ok := v.(Ref)
			if !ok {
				return v
			}
			v = f.Consts[string(r)]
		}
		return v
	}
	services, _ := cfg.Get("services").(List)
	type svc struct {
		name   string
		worker Struct
		kind   string
	}
	var all []svc
	for _, v := range services {
		s, ok := deref(v).(Struct)
		if !ok {
			continue
		}
		name, _ := s.Get("name").(string)
		e := svc{name: name}
		for _, fld := range s {
			if fld.Name == "name" {
				continue
			}
			e.kind = fld.Name
			if fld.Name == "worker" {
				e.worker, _ = deref(fld.Value).(Struct)
			}
		}
		all = append(all, e)
	}
	stem := strings.TrimSuffix(path.Base(base), ".wd-test")
	pick := -1
	nWorkers := 0
	for i, s := range all {
		if s.worker == nil {
			continue
		}
		nWorkers++
		mods := modulesOf(s.worker, deref)
		if pick < 0 && len(mods) > 0 && strings.TrimSuffix(path.Base(mods[0].File), path.Ext(mods[0].File)) == stem {
			pick = i
		}
	}
	if pick < 0 {
		for i, s := range all {
			if s.worker != nil {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return nil, fmt.Errorf("no worker service")
	}
	w := all[pick].worker
	st := &Suite{Service: all[pick].name, Modules: modulesOf(w, deref)}
	if l, ok := w.Get("compatibilityFlags").(List); ok {
		for _, v := range l {
			if s, ok := v.(string); ok {
				st.Flags = append(st.Flags, s)
			}
		}
	}
	kinds := map[string]string{}
	for _, s := range all {
		kinds[s.name] = s.kind
	}
	var why []string
	if len(st.Modules) == 0 || st.Modules[0].Kind != "esModule" {
		why = append(why, "its main module is not an ES module")
	}
	if l, ok := w.Get("bindings").(List); ok {
		for _, v := range l {
			s, ok := deref(v).(Struct)
			if !ok {
				continue
			}
			b := Binding{}
			b.Name, _ = s.Get("name").(string)
			for _, fld := range s {
				if fld.Name == "name" {
					continue
				}
				b.Kind = fld.Name
				switch x := deref(fld.Value).(type) {
				case string:
					b.Value = x
				case Struct:
					switch b.Kind {
					case "service":
						b.Value, _ = x.Get("name").(string)
						b.Entry, _ = x.Get("entrypoint").(string)
					case "durableObjectNamespace":
						b.Value, _ = x.Get("className").(string)
						if sn, _ := x.Get("serviceName").(string); sn != "" && sn != st.Service {
							why = append(why, fmt.Sprintf("env.%s is a Durable Object namespace of another worker (%s)", b.Name, sn))
						}
					}
				case Embed:
					b.Value = "embed:" + string(x)
				}
			}
			switch {
			case !SupportedBindings[b.Kind]:
				why = append(why, fmt.Sprintf("env.%s is a %s binding", b.Name, b.Kind))
			case b.Kind == "service" && b.Value != st.Service:
				why = append(why, fmt.Sprintf("env.%s is a service binding to %s (a %s service; cellhost runs one worker)", b.Name, b.Value, kinds[b.Value]))
			}
			st.Bindings = append(st.Bindings, b)
		}
	}
	sort.Strings(why)
	st.Unsupported = strings.Join(dedupe(why), "; ")
	return st, nil
}

func modulesOf(w Struct, deref func(Value) Value) []Module {
	l, _ := deref(w.Get("modules")).(List)
	var out []Module
	for _, v := range l {
		s, ok := deref(v).(Struct)
		if !ok {
			continue
		}
		m := Module{}
		m.Name, _ = s.Get("name").(string)
		for _, fld := range s {
			if fld.Name == "name" {
				continue
			}
			switch v := fld.Value.(type) {
			case Embed:
				m.Kind, m.File = fld.Name, string(v)
			case string:
				// An inline module: its source in the config.
				m.Kind, m.Source = fld.Name, v
				m.File = "__inline_" + strings.Map(func(r rune) rune {
					if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
						return r
					}
					return '_'
				}, m.Name) + ".js"
			}
		}
		if m.File != "" {
			out = append(out, m)
		}
	}
	return out
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// Wrangler is the wrangler.json that gives cellhost the suite's worker:
// main is the runner's entry module, name the worker's; read returns an
// embedded file's contents (a text or JSON binding's "embed:file").
func (s *Suite) Wrangler(main string, read func(file string) ([]byte, error)) ([]byte, error) {
	cfg := map[string]any{
		"name":                s.Service,
		"main":                main,
		"compatibility_date":  DefaultCompatDate,
		"compatibility_flags": append([]string{}, s.Flags...),
	}
	vars := map[string]any{}
	var kv, r2, dos, svcs []map[string]any
	for _, b := range s.Bindings {
		if rest, ok := strings.CutPrefix(b.Value, "embed:"); ok && (b.Kind == "text" || b.Kind == "json") {
			data, err := read(rest)
			if err != nil {
				return nil, fmt.Errorf("env.%s: %w", b.Name, err)
			}
			b.Value = string(data)
		}
		switch b.Kind {
		case "text":
			vars[b.Name] = b.Value
		case "json":
			var v any
			if err := json.Unmarshal([]byte(b.Value), &v); err != nil {
				return nil, fmt.Errorf("env.%s: %w", b.Name, err)
			}
			vars[b.Name] = v
		case "kvNamespace":
			kv = append(kv, map[string]any{"binding": b.Name, "id": b.Value})
		case "r2Bucket":
			r2 = append(r2, map[string]any{"binding": b.Name, "bucket_name": b.Value})
		case "durableObjectNamespace":
			dos = append(dos, map[string]any{"name": b.Name, "class_name": b.Value})
		case "service":
			e := map[string]any{"binding": b.Name, "service": b.Value}
			if b.Entry != "" {
				e["entrypoint"] = b.Entry
			}
			svcs = append(svcs, e)
		}
	}
	if len(vars) > 0 {
		cfg["vars"] = vars
	}
	if kv != nil {
		cfg["kv_namespaces"] = kv
	}
	if r2 != nil {
		cfg["r2_buckets"] = r2
	}
	if dos != nil {
		cfg["durable_objects"] = map[string]any{"bindings": dos}
	}
	if svcs != nil {
		cfg["services"] = svcs
	}
	return json.MarshalIndent(cfg, "", "  ")
}

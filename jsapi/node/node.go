// Package node is cellhost's Node.js compatibility layer (workerd's
// nodejs_compat): the node:* built-in modules and, under nodejs_compat_v2,
// the globals Buffer, process, setImmediate and clearImmediate.
//
// buffer, url and util.format come from goja_nodejs; crypto is Go natives
// (crypto*.go: keys, signatures, KDFs, ciphers, ECDH/DH, X509Certificate)
// under the classes of crypto.js, and reaches jsapi/web for CryptoKey
// (KeyObject.from, toCryptoKey); the async context behind
// AsyncLocalStorage is Go; the rest is modules.js.
package node

import (
	_ "embed"
	"errors"
	"sort"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/buffer"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/require"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/url"
	"github.com/cellhost/cellhost/third_party/goja_nodejs/util"
)

// RequireGlobal is the global function the bundle's node:* modules call to
// get a built-in module's exports (see jsapi's module plugin).
const RequireGlobal = "__cellhost_node_require"

//go:embed modules.js
var modulesJS string

var modulesProgram = goja.MustCompile("cellhost:node.js", modulesJS, true)

// readableStreamJS is node:stream: readable-stream, the Node.js project's
// streams as a package, bundled by vendor/build.sh.
//
//go:embed vendor/readable-stream.js
var readableStreamJS string

var readableStreamProgram = goja.MustCompile("cellhost:node-stream.js", readableStreamJS, false)

// minimatchJS is the matcher of node:fs's glob: minimatch, the one Node's
// own fs.glob uses, bundled by vendor/build.sh.
//
//go:embed vendor/minimatch.js
var minimatchJS string

var minimatchProgram = goja.MustCompile("cellhost:node-minimatch.js", minimatchJS, false)

// Options configure Install.
type Options struct {
	Compat Compat
	// Env is process.env when Compat.PopulateEnv: the worker's text vars.
	Env map[string]string
	// SetImmediate runs f as a macrotask of its own (a zero-delay timer).
	SetImmediate func(f func()) (cancel func())
	// FSScope names the /tmp of node:fs the running code sees ("worker:N"
	// for a worker request, "do:<scope>" for an object); nil: one /tmp.
	FSScope func() string
	// BundleFiles are the names under node:fs's /bundle.
	BundleFiles []string
}

// Install makes the built-in modules importable in rt (through
// RequireGlobal) and, under V2, installs the Node globals. It does nothing
// when c enables neither modules nor AsyncLocalStorage.
func Install(rt *goja.Runtime, o Options) error {
	c := o.Compat
	if !c.Modules && !c.ALS {
		return nil
	}
	reg := require.NewRegistry(require.WithLoader(func(string) ([]byte, error) {
		return nil, require.ModuleFileDoesNotExistError
	}))
	prev := rt.Get("require")
	rm := reg.Enable(rt)
	// No global require (workerd has none); goja_nodejs finds Buffer as a
	// global instead.
	if prev == nil {
		_ = rt.GlobalObject().Delete("require")
	} else {
		_ = rt.Set("require", prev)
	}
	req := func(name string) goja.Value {
		v, err := rm.Require(name)
		if err != nil {
			var ex *goja.Exception
			if errors.As(err, &ex) {
				panic(ex)
			}
			panic(rt.NewGoError(err))
		}
		return v
	}

	ctx := newAsyncContext(rt)
	native := rt.NewObject()
	_ = native.Set("require", func(name string) goja.Value { return req(name) })
	_ = native.Set("asyncContext", ctx.object())
	_ = native.Set("zlib", zlibNative(rt))
	scope := o.FSScope
	if scope == nil {
		scope = func() string { return "worker:0" }
	}
	_ = native.Set("fsScope", scope)
	bundleFiles := o.BundleFiles
	if bundleFiles == nil {
		bundleFiles = []string{}
	}
	_ = native.Set("fsBundleFiles", bundleFiles)
	_ = native.Set("builtins", append([]string(nil), modules...))
	immediates := newImmediates(rt, o.SetImmediate, ctx)
	_ = native.Set("setImmediate", immediates.set)
	_ = native.Set("clearImmediate", immediates.clear)
	utilMod := rt.NewObject()
	utilMod.Set("exports", rt.NewObject())
	util.Require(rt, utilMod)
	_ = native.Set("util", utilMod.Get("exports"))

	fn, err := rt.RunProgram(modulesProgram)
	if err != nil {
		return err
	}
	call, _ := goja.AssertFunction(fn)
	defsV, err := call(goja.Undefined(), native)
	if err != nil {
		return err
	}
	defs := defsV.ToObject(rt)
	for _, name := range defs.Keys() {
		make, _ := goja.AssertFunction(defs.Get(name))
		reg.RegisterNativeModule(name, func(rt *goja.Runtime, module *goja.Object) {
			v, err := make(goja.Undefined())
			if err != nil {
				panic(err)
			}
			_ = module.Set("exports", v)
		})
	}
	reg.RegisterNativeModule("_stream", func(rt *goja.Runtime, module *goja.Object) {
		fn, err := rt.RunProgram(readableStreamProgram)
		if err != nil {
			panic(err)
		}
		call, _ := goja.AssertFunction(fn)
		exports := rt.NewObject()
		_ = module.Set("exports", exports)
		// Its dependencies are cellhost's modules ("process/" and
		// "string_decoder/" name the npm copies: the built-ins here).
		vreq := func(name string) goja.Value { return req(strings.TrimSuffix(name, "/")) }
		if _, err := call(goja.Undefined(), rt.ToValue(vreq), module, exports); err != nil {
			panic(err)
		}
	})
	reg.RegisterNativeModule("_minimatch", func(rt *goja.Runtime, module *goja.Object) {
		fn, err := rt.RunProgram(minimatchProgram)
		if err != nil {
			panic(err)
		}
		call, _ := goja.AssertFunction(fn)
		exports := rt.NewObject()
		_ = module.Set("exports", exports)
		if _, err := call(goja.Undefined(), rt.ToValue(func(name string) goja.Value { return req(name) }), module, exports); err != nil {
			panic(err)
		}
	})
	reg.RegisterNativeModule("_buffer", func(rt *goja.Runtime, module *goja.Object) {
		buffer.Require(rt, module)
		boundBufferAllocations(rt, module.Get("exports").ToObject(rt).Get("Buffer").ToObject(rt))
	})
	reg.RegisterNativeModule("_url", url.Require)
	reg.RegisterNativeModule("crypto", func(rt *goja.Runtime, module *goja.Object) {
		_ = module.Set("exports", cryptoModule(rt))
	})
	reg.RegisterNativeModule("process", func(rt *goja.Runtime, module *goja.Object) {
		_ = module.Set("exports", processObject(rt, o, immediates))
	})

	// Buffer is global for goja_nodejs's sake (it looks it up there).
	if c.Modules {
		_ = rt.Set("Buffer", req("buffer").ToObject(rt).Get("Buffer"))
	}
	if c.V2 {
		_ = rt.Set("process", req("process"))
		_ = rt.Set("setImmediate", immediates.set)
		_ = rt.Set("clearImmediate", immediates.clear)
	}
	_ = rt.Set(RequireGlobal, func(name string) goja.Value {
		if !c.Enabled(name) {
			panic(rt.NewTypeError("No such module \"node:" + name + "\"."))
		}
		return req(name)
	})
	if c.ALS {
		rt.SetAsyncContextTracker(ctx)
		// Timer callbacks run in the context that scheduled them.
		for _, name := range []string{"setTimeout", "setInterval"} {
			orig, ok := goja.AssertFunction(rt.Get(name))
			if !ok {
				continue
			}
			_ = rt.Set(name, func(call goja.FunctionCall) goja.Value {
				args := append([]goja.Value(nil), call.Arguments...)
				if fn, ok := goja.AssertFunction(call.Argument(0)); ok && ctx.current != nil {
					saved := ctx.current
					args[0] = rt.ToValue(func(inner goja.FunctionCall) goja.Value {
						prev := ctx.current
						ctx.current = saved
						defer func() { ctx.current = prev }()
						v, err := fn(inner.This, inner.Arguments...)
						if err != nil {
							panic(err)
						}
						return v
					})
				}
				v, err := orig(call.This, args...)
				if err != nil {
					panic(err)
				}
				return v
			})
		}
	}
	return nil
}

// processObject is node:process as workerd has it.
func processObject(rt *goja.Runtime, o Options, im *immediates) *goja.Object {
	p := rt.NewObject()
	env := rt.NewObject()
	if o.Compat.PopulateEnv {
		keys := make([]string, 0, len(o.Env))
		for k := range o.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			_ = env.Set(k, o.Env[k])
		}
	}
	_ = p.Set("env", env)
	_ = p.Set("platform", "linux")
	_ = p.Set("arch", "x64")
	_ = p.Set("version", "v22.14.0")
	versions := rt.NewObject()
	_ = versions.Set("node", "22.14.0")
	_ = p.Set("versions", versions)
	_ = p.Set("argv", rt.NewArray())
	_ = p.Set("execArgv", rt.NewArray())
	_ = p.Set("title", "workerd")
	_ = p.Set("pid", 1)
	_ = p.Set("ppid", 0)
	_ = p.Set("exitCode", goja.Undefined())
	_ = p.Set("cwd", func() string { return "/bundle" })
	_ = p.Set("umask", func() int { return 0o22 })
	_ = p.Set("uptime", func() float64 { return 0 })
	_ = p.Set("emitWarning", func(goja.FunctionCall) goja.Value { return goja.Undefined() })
	_ = p.Set("nextTick", func(call goja.FunctionCall) goja.Value {
		fn, ok := goja.AssertFunction(call.Argument(0))
		if !ok {
			panic(rt.NewTypeError("The \"callback\" argument must be of type function."))
		}
		args := append([]goja.Value(nil), call.Arguments[1:]...)
		// A microtask, as workerd queues nextTick.
		qm, _ := goja.AssertFunction(rt.Get("queueMicrotask"))
		_, err := qm(goja.Undefined(), rt.ToValue(func(goja.FunctionCall) goja.Value {
			if _, err := fn(goja.Undefined(), args...); err != nil {
				panic(err)
			}
			return goja.Undefined()
		}))
		if err != nil {
			panic(err)
		}
		return goja.Undefined()
	})
	features := rt.NewObject()
	_ = p.Set("features", features)
	release := rt.NewObject()
	_ = release.Set("name", "node")
	_ = p.Set("release", release)
	_ = p.Set("hrtime", func(goja.FunctionCall) goja.Value { return rt.NewArray(0, 0) })
	for _, name := range []string{"on", "once", "off", "addListener", "removeListener", "removeAllListeners", "prependListener", "prependOnceListener"} {
		_ = p.Set(name, func(goja.FunctionCall) goja.Value { return p })
	}
	_ = p.Set("listeners", func(goja.FunctionCall) goja.Value { return rt.NewArray() })
	_ = p.Set("emit", func(goja.FunctionCall) goja.Value { return rt.ToValue(false) })
	_ = p.Set("exit", func(goja.FunctionCall) goja.Value {
		panic(rt.NewTypeError("process.exit() is not supported by cellhost"))
	})
	_ = p.Set("abort", func(goja.FunctionCall) goja.Value {
		panic(rt.NewTypeError("process.abort() is not supported by cellhost"))
	})
	_ = p.Set("getBuiltinModule", func(name string) goja.Value {
		if len(name) > 5 && name[:5] == "node:" {
			name = name[5:]
		}
		if !Builtin(name) {
			return goja.Undefined()
		}
		f, _ := goja.AssertFunction(rt.Get(RequireGlobal))
		v, err := f(goja.Undefined(), rt.ToValue(name))
		if err != nil {
			panic(err)
		}
		return v
	})
	return p
}

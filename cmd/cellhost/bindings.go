package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/jsapi/web"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/d1"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/kv"
	"github.com/cellhost/cellhost/plugins/r2"
)

// bindingSet holds the resources of the bindings beyond Durable Objects
// (KV namespaces, R2 buckets) across reloads, and makes host.Config.Bind
// (and BindInternal for D1 databases, which are cells of the host).
type bindingSet struct {
	stateDir string
	mu       sync.Mutex
	kv       map[string]*kv.Namespace // by namespace id
	// bucket holds the R2 buckets (r2/<bucket>/<key>) and the KV
	// namespaces (cellhost/kv/<namespace>/...): the host's bucket; without
	// one (--durability local), <stateDir>/bucket, opened on first use and
	// closed by close (ownR2Store).
	bucket     plugins.ObjectStore
	ownR2Store bool
}

// store returns the host's bucket, or <stateDir>/bucket without one.
// b.mu is held.
func (b *bindingSet) store() (plugins.ObjectStore, error) {
	if b.bucket == nil {
		st, err := filestore.New(filepath.Join(b.stateDir, "bucket"))
		if err != nil {
			return nil, err
		}
		b.bucket, b.ownR2Store = st, true
	}
	return b.bucket, nil
}

// r2Bucket returns the R2 bucket name in the host's bucket.
func (b *bindingSet) r2Bucket(name string) (*r2.Bucket, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st, err := b.store()
	if err != nil {
		return nil, err
	}
	return r2.New(st, name)
}

// namespace opens (once) the KV namespace id.
func (b *bindingSet) namespace(id string) (*kv.Namespace, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n, ok := b.kv[id]; ok {
		return n, nil
	}
	st, err := b.store()
	if err != nil {
		return nil, err
	}
	// The namespace lives in the bucket (a fleet shares it); one kept in
	// <state>/kv by an older cellhost moves there on first use.
	n, err := kv.OpenStore(st, safeFileName(id), filepath.Join(b.stateDir, "kv", safeFileName(id)+".sqlite"))
	if err != nil {
		return nil, err
	}
	if b.kv == nil {
		b.kv = map[string]*kv.Namespace{}
	}
	b.kv[id] = n
	return n, nil
}

func (b *bindingSet) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, n := range b.kv {
		_ = n.Close()
		delete(b.kv, id)
	}
	if b.ownR2Store {
		_ = b.bucket.Close()
		b.bucket, b.ownR2Store = nil, false
	}
}

// safeFileName keeps letters, digits, '-', '_' and '.' of an id.
func safeFileName(id string) string {
	var sb strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	if s := sb.String(); s != "" && s != "." && s != ".." {
		return s
	}
	return "_"
}

// bindD1 sets hc.Internal and hc.BindInternal for a project's D1 databases:
// each is an internal cell of the host (plugins/d1), so that it is logged
// to the bucket and a fleet shares it. The class is known even without a
// binding, so that a node answers a peer's forwarded query.
func bindD1(cfg *wrangler.Config, hc *host.Config) {
	hc.Internal = append(hc.Internal, host.InternalClass{Name: d1.Class, Serve: d1.Serve})
	if len(cfg.D1) == 0 {
		return
	}
	dbs := append([]wrangler.D1Binding(nil), cfg.D1...)
	hc.BindInternal = func(rt *goja.Runtime, env *goja.Object, cells host.CellCaller) error {
		for _, x := range dbs {
			id := x.ID
			if err := d1.Bind(rt, env, x.Name, func(req []byte, done func([]byte, error)) { cells.CallCell(d1.Class, id, req, done) }); err != nil {
				return err
			}
		}
		return nil
	}
}

// binder returns the host.Config.Bind of a project: KV namespaces, service
// bindings to the worker's own entrypoints, the assets binding and the stubs
// of binding kinds cellhost lacks. nil when there are none.
func (b *bindingSet) binder(cfg *wrangler.Config, assets *assetServer) (func(rt *goja.Runtime, env *goja.Object) error, error) {
	if len(cfg.KV) == 0 && len(cfg.R2) == 0 && len(cfg.Services) == 0 && len(cfg.Stubs) == 0 && (assets == nil || cfg.Assets.Binding == "") {
		return nil, nil
	}
	nss := make([]*kv.Namespace, len(cfg.KV))
	for i, k := range cfg.KV {
		n, err := b.namespace(k.ID)
		if err != nil {
			return nil, fmt.Errorf("kv_namespaces %s: %w", k.Name, err)
		}
		nss[i] = n
	}
	r2s := make([]*r2.Bucket, len(cfg.R2))
	for i, x := range cfg.R2 {
		rb, err := b.r2Bucket(x.Bucket)
		if err != nil {
			return nil, fmt.Errorf("r2_buckets %s: %w", x.Name, err)
		}
		r2s[i] = rb
	}
	return func(rt *goja.Runtime, env *goja.Object) error {
		for i, x := range cfg.R2 {
			if err := r2.Bind(rt, env, x.Name, r2s[i]); err != nil {
				return err
			}
		}
		for i, k := range cfg.KV {
			if err := kv.Bind(rt, env, k.Name, nss[i]); err != nil {
				return err
			}
		}
		glue, err := bindingGlue(rt)
		if err != nil {
			return err
		}
		for _, s := range cfg.Services {
			v, err := jsapi.ServiceStub(rt, "env."+s.Name, s.Entrypoint)
			if err != nil {
				return fmt.Errorf("bind service %s: %w", s.Name, err)
			}
			_ = env.Set(s.Name, v)
		}
		for _, s := range cfg.Stubs {
			v, err := glue.stub(goja.Undefined(), rt.ToValue(s.Name), rt.ToValue(s.Why))
			if err != nil {
				return fmt.Errorf("bind %s: %w", s.Name, err)
			}
			_ = env.Set(s.Name, v)
		}
		if assets != nil && cfg.Assets.Binding != "" {
			fetch := func(c goja.FunctionCall) goja.Value {
				req, err := web.RequestFromArgs(rt, c.Argument(0), c.Argument(1))
				if err != nil {
					panic(err)
				}
				res, err := web.NewResponse(rt, assets.fetch(req))
				if err != nil {
					panic(err)
				}
				return res
			}
			v, err := glue.assets(goja.Undefined(), rt.ToValue(fetch))
			if err != nil {
				return fmt.Errorf("bind %s: %w", cfg.Assets.Binding, err)
			}
			_ = env.Set(cfg.Assets.Binding, v)
		}
		return nil
	}, nil
}

// glueFuncs are bindings.js's constructors in one runtime.
type glueFuncs struct{ stub, assets goja.Callable }

var glueProgram = goja.MustCompile("cellhost:bindings", bindingsJS, true)

func bindingGlue(rt *goja.Runtime) (*glueFuncs, error) {
	v, err := rt.RunProgram(glueProgram)
	if err != nil {
		return nil, fmt.Errorf("bindings: %w", err)
	}
	o := v.ToObject(rt)
	g := &glueFuncs{}
	g.stub, _ = goja.AssertFunction(o.Get("stub"))
	g.assets, _ = goja.AssertFunction(o.Get("assets"))
	return g, nil
}

// assetFetch serves one request from the assets directory as a Go response
// (for env.ASSETS.fetch).
func (a *assetServer) fetch(req *jsapi.HTTPRequest) *jsapi.HTTPResponse {
	if req.BodyStream != nil {
		_ = req.BodyStream.Close() // assets read no body (a JS stream body is canceled)
	}
	r, err := http.NewRequest(req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return &jsapi.HTTPResponse{Status: http.StatusBadRequest, Body: []byte(err.Error())}
	}
	rec := httptest.NewRecorder()
	if !a.serve(rec, r, true) {
		rec.WriteHeader(http.StatusNotFound)
	}
	res := &jsapi.HTTPResponse{Status: rec.Code, Body: rec.Body.Bytes()}
	for k, vs := range rec.Header() {
		for _, v := range vs {
			res.Header = append(res.Header, [2]string{strings.ToLower(k), v})
		}
	}
	return res
}

const bindingsJS = `({
  // A binding of a kind cellhost does not have: using it throws.
  stub(binding, why) {
    return new Proxy({}, {
      get(_, prop) {
        if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
        throw new Error(why + " (used: env." + binding + "." + String(prop) + ")");
      },
    });
  },
  assets(fetch) {
    return { fetch: async (input, init) => fetch(input, init) };
  },
})`

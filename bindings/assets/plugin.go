package assets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/jsapi/web"
)

// ConfigKey is the wrangler configuration key of the assets.
const ConfigKey = "assets"

// Config is wrangler's "assets" key.
type Config struct {
	Directory        string // absolute
	Binding          string // env.<Binding> has fetch(); "" for none
	NotFoundHandling string // "none" (default), "404-page" or "single-page-application"
	HTMLHandling     string // "auto-trailing-slash" (default), "force-trailing-slash", "drop-trailing-slash" or "none"
	RunWorkerFirst   bool
}

func init() {
	binding.Register(&binding.Plugin{Key: ConfigKey, Kind: "Assets", Decode: decode, Prepare: prepare})
}

// Of returns the assets configuration among entries (the configuration's
// "assets" entries), nil without one.
func Of(entries []binding.Entry) *Config {
	for _, e := range entries {
		if c, ok := e.Config.(*Config); ok {
			return c
		}
	}
	return nil
}

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var a struct {
		Directory        string          `json:"directory"`
		Binding          string          `json:"binding"`
		NotFoundHandling string          `json:"not_found_handling"`
		HTMLHandling     string          `json:"html_handling"`
		RunWorkerFirst   json.RawMessage `json:"run_worker_first"`
	}
	if err := d.Object(ConfigKey, raw, &a); err != nil {
		return nil, err
	}
	if a.Directory == "" {
		return nil, fmt.Errorf("assets needs a \"directory\"")
	}
	as := &Config{Directory: filepath.Join(d.Dir, a.Directory), Binding: a.Binding,
		NotFoundHandling: a.NotFoundHandling, HTMLHandling: a.HTMLHandling}
	switch as.NotFoundHandling {
	case "":
		as.NotFoundHandling = "none"
	case "none", "404-page", "single-page-application":
	default:
		return nil, fmt.Errorf("assets.not_found_handling %q: want none, 404-page or single-page-application", a.NotFoundHandling)
	}
	switch as.HTMLHandling {
	case "":
		as.HTMLHandling = "auto-trailing-slash"
	case "auto-trailing-slash", "force-trailing-slash", "drop-trailing-slash", "none":
	default:
		return nil, fmt.Errorf("assets.html_handling %q: want auto-trailing-slash, force-trailing-slash, drop-trailing-slash or none", a.HTMLHandling)
	}
	as.RunWorkerFirst = string(a.RunWorkerFirst) == "true"
	if len(a.RunWorkerFirst) > 0 && string(a.RunWorkerFirst) != "true" && string(a.RunWorkerFirst) != "false" {
		d.Warn(fmt.Sprintf("%s: assets.run_worker_first as a list of patterns is not supported; the assets are served first", filepath.Base(d.Path)))
	}
	return []binding.Entry{{Name: as.Binding, Show: relOrAbs(as.Directory), Config: as}}, nil
}

func relOrAbs(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && len(r) < len(p) {
		return r
	}
	return p
}

var glueProgram = goja.MustCompile("cellhost:assets", `(function (fetch) {
  return { fetch: async (input, init) => fetch(input, init) };
})`, true)

// prepare binds env.<binding> (when named) to an object whose fetch()
// serves the assets.
func prepare(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	c := Of(entries)
	if c == nil || c.Binding == "" {
		return nil, nil
	}
	a := NewServer(c)
	return func(rt *goja.Runtime, env *goja.Object, _ binding.CellCaller) error {
		fetch := func(call goja.FunctionCall) goja.Value {
			req, err := web.RequestFromArgs(rt, call.Argument(0), call.Argument(1))
			if err != nil {
				panic(err)
			}
			res, err := web.NewResponse(rt, a.Fetch(req))
			if err != nil {
				panic(err)
			}
			return res
		}
		fv, err := rt.RunProgram(glueProgram)
		if err != nil {
			return fmt.Errorf("bind %s: %w", c.Binding, err)
		}
		fn, _ := goja.AssertFunction(fv)
		v, err := fn(goja.Undefined(), rt.ToValue(fetch))
		if err != nil {
			return fmt.Errorf("bind %s: %w", c.Binding, err)
		}
		return env.Set(c.Binding, v)
	}, nil
}

// Fetch serves one request from the assets directory as a Go response
// (for env.ASSETS.fetch).
func (a *Server) Fetch(req *jsapi.HTTPRequest) *jsapi.HTTPResponse {
	if req.BodyStream != nil {
		_ = req.BodyStream.Close() // assets read no body (a JS stream body is canceled)
	}
	r, err := http.NewRequest(req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return &jsapi.HTTPResponse{Status: http.StatusBadRequest, Body: []byte(err.Error())}
	}
	rec := httptest.NewRecorder()
	if !a.Serve(rec, r, true) {
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

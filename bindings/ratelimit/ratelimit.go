// Package ratelimit is the "ratelimits" binding plugin: the Workers rate
// limiting binding, env.<name>.limit({key}) resolving to {success}. As on
// Cloudflare, where each location counts on its own and the counts are
// "permissive, eventually consistent", each cellhost process counts in
// memory, per namespace and key, over fixed windows of period seconds
// (10 or 60); the counters of one namespace_id are shared by every
// binding naming it in the process.
//
//	"ratelimits": [{"name": "LIMITER", "namespace_id": "1001", "simple": {"limit": 100, "period": 60}}]
package ratelimit

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
)

// ConfigKey is the wrangler configuration key of rate limiters.
const ConfigKey = "ratelimits"

// Config is one ratelimits entry.
type Config struct {
	Namespace string
	Limit     int64
	Period    time.Duration
}

func init() {
	binding.Register(&binding.Plugin{Key: ConfigKey, Kind: "Rate limiter", Decode: decode, Prepare: prepare})
}

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var list []struct {
		Name        string `json:"name"`
		NamespaceID string `json:"namespace_id"`
		Simple      *struct {
			Limit  int64 `json:"limit"`
			Period int64 `json:"period"`
		} `json:"simple"`
	}
	if err := d.List(ConfigKey, raw, &list); err != nil {
		return nil, err
	}
	var out []binding.Entry
	for i, x := range list {
		switch {
		case x.Name == "" || x.NamespaceID == "" || x.Simple == nil:
			return nil, fmt.Errorf("ratelimits[%d] needs \"name\", \"namespace_id\" and \"simple\"", i)
		case x.Simple.Limit < 1:
			return nil, fmt.Errorf("ratelimits[%d].simple.limit is %d: want a positive number", i, x.Simple.Limit)
		case x.Simple.Period != 10 && x.Simple.Period != 60:
			return nil, fmt.Errorf("ratelimits[%d].simple.period is %d: want 10 or 60 (seconds)", i, x.Simple.Period)
		}
		c := Config{Namespace: x.NamespaceID, Limit: x.Simple.Limit, Period: time.Duration(x.Simple.Period) * time.Second}
		out = append(out, binding.Entry{Name: x.Name, Show: fmt.Sprintf("%d per %s (namespace %s, counted in this process)", c.Limit, c.Period, c.Namespace), Config: c})
	}
	return out, nil
}

// Limiter counts over fixed windows.
type Limiter struct {
	cfg Config
	now func() time.Time

	mu     sync.Mutex
	window int64            // the current window's number
	counts map[string]int64 // by key, in the current window
}

// NewLimiter returns a limiter of c on clock now.
func NewLimiter(c Config, now func() time.Time) *Limiter {
	return &Limiter{cfg: c, now: now, counts: map[string]int64{}}
}

// Limit counts one call for key and reports whether it is within the limit.
func (l *Limiter) Limit(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.now().UnixNano() / int64(l.cfg.Period)
	if w != l.window {
		l.window, l.counts = w, map[string]int64{}
	}
	if l.counts[key] >= l.cfg.Limit {
		return false
	}
	l.counts[key]++
	return true
}

var (
	limitersMu sync.Mutex
	limiters   = map[Config]*Limiter{}
)

func limiterOf(c Config) *Limiter {
	limitersMu.Lock()
	defer limitersMu.Unlock()
	l, ok := limiters[c]
	if !ok {
		l = NewLimiter(c, time.Now)
		limiters[c] = l
	}
	return l
}

var glue = goja.MustCompile("cellhost:ratelimit", `(function (limit) {
  class RateLimit {
    async limit(options) {
      if (options === null || typeof options !== "object" || typeof options.key !== "string") {
        throw new TypeError("limit() needs an object with a string key");
      }
      return { success: limit(options.key) };
    }
  }
  return new RateLimit();
})`, true)

func prepare(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	ls := make([]*Limiter, len(entries))
	for i, e := range entries {
		ls[i] = limiterOf(e.Config.(Config))
	}
	return func(rt *goja.Runtime, env *goja.Object, _ binding.CellCaller) error {
		for i, e := range entries {
			fv, err := rt.RunProgram(glue)
			if err != nil {
				return err
			}
			fn, _ := goja.AssertFunction(fv)
			v, err := fn(goja.Undefined(), rt.ToValue(ls[i].Limit))
			if err != nil {
				return err
			}
			if err := env.Set(e.Name, v); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

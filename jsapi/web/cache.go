package web

import (
	"container/list"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// CacheStorage is the store behind the Cache API (caches.default and
// caches.open(name)): responses in memory, keyed by cache and URL (Vary is
// not consulted), each kept for the time its headers allow. workerd has no
// cache unless a cache service is configured (put, match and delete then
// reject with "No Cache was configured"); cellhost keeps a working local
// cache with the rules wrangler dev's (miniflare's) applies, which follow
// Cloudflare's: only GET, never a response with Set-Cookie (unless
// Cache-Control: private=Set-Cookie, which drops it), no-store and private
// are not stored, the lifetime is s-maxage, max-age, Expires - Date or a
// tenth of the time since Last-Modified, less Age, and no-cache or a
// lifetime of zero stores nothing.
//
// A CacheStorage is safe for concurrent use: one is shared by every
// runtime given it in Options.Cache.
type CacheStorage struct {
	mu       sync.Mutex
	entries  map[cacheKey]*list.Element // of *cacheEntry, oldest first
	order    *list.List
	bytes    int64
	maxBytes int64
	now      func() time.Time
}

type cacheKey struct {
	cache string // "" for caches.default, "n:"+name for caches.open(name)
	url   string
}

type cacheEntry struct {
	key        cacheKey
	status     int
	statusText string
	headers    []string // flat name, value pairs
	body       []byte
	expires    time.Time
}

// NewCacheStorage returns an empty cache holding at most maxBytes of
// response bodies (the oldest entries go first); now is its clock (nil:
// time.Now).
func NewCacheStorage(maxBytes int64, now func() time.Time) *CacheStorage {
	if now == nil {
		now = time.Now
	}
	return &CacheStorage{entries: map[cacheKey]*list.Element{}, order: list.New(), maxBytes: maxBytes, now: now}
}

// defaultCacheStorage is the cache of runtimes installed without
// Options.Cache: one per process, like the cache of a Cloudflare colo.
var defaultCacheStorage = NewCacheStorage(64<<20, nil)

// cacheTTL returns how long a response with these headers may be kept
// (zero: not at all), and the headers to store.
func cacheTTL(status int, headers []string, now time.Time) (time.Duration, []string) {
	h := http.Header{}
	for i := 0; i+1 < len(headers); i += 2 {
		h.Add(headers[i], headers[i+1])
	}
	cc := parseCacheControl(strings.Join(h.Values("Cache-Control"), ","))
	if v, ok := cc["private"]; ok && strings.EqualFold(strings.TrimSpace(v), "set-cookie") {
		delete(cc, "private")
		h.Del("Set-Cookie")
		kept := headers[:0:0]
		for i := 0; i+1 < len(headers); i += 2 {
			if !strings.EqualFold(headers[i], "set-cookie") {
				kept = append(kept, headers[i], headers[i+1])
			}
		}
		headers = kept
	}
	if h.Get("Set-Cookie") != "" {
		return 0, nil
	}
	if _, ok := cc["no-store"]; ok {
		return 0, nil
	}
	if _, ok := cc["private"]; ok {
		return 0, nil
	}
	switch status {
	case 200, 203, 204, 300, 301, 302, 303, 307, 308, 404, 405, 410, 414, 501:
	default:
		return 0, nil
	}
	if _, ok := cc["no-cache"]; ok {
		return 0, nil
	}
	var ttl time.Duration
	secs := func(s string) (time.Duration, bool) {
		n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(s), `"`), 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	date := now
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		date = d
	}
	if v, ok := cc["s-maxage"]; ok {
		ttl, _ = secs(v)
	} else if v, ok := cc["max-age"]; ok {
		ttl, _ = secs(v)
	} else if e := h.Get("Expires"); e != "" {
		if t, err := http.ParseTime(e); err == nil {
			ttl = t.Sub(date)
		}
	} else if lm, err := http.ParseTime(h.Get("Last-Modified")); err == nil && lm.Before(date) {
		ttl = date.Sub(lm) / 10
	}
	if age, ok := secs(h.Get("Age")); ok {
		ttl -= age
	}
	if ttl <= 0 {
		return 0, nil
	}
	return ttl, headers
}

// parseCacheControl splits a Cache-Control value into lower-case
// directives and their values.
func parseCacheControl(v string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, val, _ := strings.Cut(part, "=")
		out[strings.ToLower(strings.TrimSpace(name))] = strings.TrimSpace(val)
	}
	return out
}

// put stores a response if its headers allow; it reports whether it did.
func (c *CacheStorage) put(key cacheKey, status int, statusText string, headers []string, body []byte) bool {
	now := c.now()
	ttl, headers := cacheTTL(status, headers, now)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	if ttl <= 0 || int64(len(body)) > c.maxBytes {
		return false
	}
	e := &cacheEntry{key: key, status: status, statusText: statusText, headers: headers, body: body, expires: now.Add(ttl)}
	c.entries[key] = c.order.PushBack(e)
	c.bytes += int64(len(body))
	for c.bytes > c.maxBytes {
		c.removeLocked(c.order.Front().Value.(*cacheEntry).key)
	}
	return true
}

func (c *CacheStorage) removeLocked(key cacheKey) bool {
	el, ok := c.entries[key]
	if !ok {
		return false
	}
	c.order.Remove(el)
	delete(c.entries, key)
	c.bytes -= int64(len(el.Value.(*cacheEntry).body))
	return true
}

// match returns the fresh entry for key, or nil.
func (c *CacheStorage) match(key cacheKey) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.removeLocked(key)
		return nil
	}
	return e
}

// delete removes key's entry; it reports whether a fresh one was there.
func (c *CacheStorage) delete(key cacheKey) bool {
	fresh := c.match(key) != nil
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	return fresh
}

// cacheNatives are the Cache API's natives over store.
func cacheNatives(rt *goja.Runtime, store *CacheStorage, n natives) {
	keyOf := func(c goja.FunctionCall) cacheKey {
		k := cacheKey{url: c.Argument(1).String()}
		if name := c.Argument(0); !goja.IsUndefined(name) {
			k.cache = "n:" + name.String()
		}
		return k
	}
	// cachePut(name|undefined, url, status, statusText, flatHeaders, u8) → stored
	n.setE("cachePut", func(c goja.FunctionCall) (goja.Value, error) {
		body, err := bytesOf(c.Argument(5))
		if err != nil {
			return nil, err
		}
		var flat []string
		if err := rt.ExportTo(c.Argument(4), &flat); err != nil {
			return nil, jserr.TypeError("cachePut: headers")
		}
		stored := store.put(keyOf(c), int(c.Argument(2).ToInteger()), c.Argument(3).String(), flat, append([]byte(nil), body...))
		return rt.ToValue(stored), nil
	})
	// cacheMatch(name|undefined, url) → [status, statusText, flatHeaders, ArrayBuffer] or null
	n.set("cacheMatch", func(c goja.FunctionCall) goja.Value {
		e := store.match(keyOf(c))
		if e == nil {
			return goja.Null()
		}
		hs := make([]interface{}, len(e.headers))
		for i, h := range e.headers {
			hs[i] = h
		}
		return rt.NewArray(e.status, e.statusText, rt.NewArray(hs...), rt.NewArrayBuffer(append([]byte(nil), e.body...)))
	})
	// cacheDelete(name|undefined, url) → deleted
	n.set("cacheDelete", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(store.delete(keyOf(c)))
	})
}

package web

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
)

// Headers are serializable as workerd serializes them (api/http.c++,
// Headers::serialize): host-object tag 4, the guard, the number of lines,
// then each line as a common header id (http-over-capnp.capnp's
// CommonHeaderName) or 0 and the name, then the value. Lines of common
// names come first, by id; the others follow, name by name in the order
// each name first appeared.

const (
	headersTag = 4
	// workerd's Headers::Guard: IMMUTABLE, REQUEST, RESPONSE, NONE
	guardImmutable = 0
	guardNone      = 3
)

// commonHeaders are CommonHeaderName 1 to 47, lowercased.
var commonHeaders = []string{"", "accept-charset", "accept-encoding", "accept-language", "accept-ranges", "accept",
	"access-control-allow-origin", "age", "allow", "authorization", "cache-control", "content-disposition",
	"content-encoding", "content-language", "content-length", "content-location", "content-range",
	"content-type", "cookie", "date", "etag", "expect", "expires", "from", "host", "if-match",
	"if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "last-modified", "link",
	"location", "max-forwards", "proxy-authenticate", "proxy-authorization", "range", "referer", "refresh",
	"retry-after", "server", "set-cookie", "strict-transport-security", "transfer-encoding", "user-agent",
	"vary", "via", "www-authenticate"}

var commonHeaderID = func() map[string]uint32 {
	m := make(map[string]uint32, len(commonHeaders))
	for i, n := range commonHeaders[1:] {
		m[n] = uint32(i + 1)
	}
	return m
}()

func installHeadersClone(rt *goja.Runtime, internals *goja.Object) error {
	listFn, ok1 := goja.AssertFunction(internals.Get("headersList"))
	wrapFn, ok2 := goja.AssertFunction(internals.Get("wrapHeaders"))
	if !ok1 || !ok2 {
		return errors.New("web prelude: missing headersList or wrapHeaders")
	}
	return clone.RegisterHost(rt, "Headers", clone.HostCodec{
		Tag: headersTag,
		Write: func(w *clone.HostWriter, o *goja.Object) error {
			lv, err := listFn(goja.Undefined(), o)
			if err != nil {
				return err
			}
			l, err := listOf(lv)
			if err != nil {
				return err
			}
			guard := uint32(guardNone)
			if l.immutable {
				guard = guardImmutable
			}
			w.Uint32(guard)
			w.Uint32(uint32(len(l.h)))
			idx := make([]int, len(l.h))
			first := map[string]int{} // name -> index of its first line
			for i, h := range l.h {
				idx[i] = i
				if _, ok := first[h.name]; !ok {
					first[h.name] = i
				}
			}
			sort.SliceStable(idx, func(a, b int) bool {
				ha, hb := l.h[idx[a]], l.h[idx[b]]
				ca, cb := commonHeaderID[ha.name], commonHeaderID[hb.name]
				switch {
				case ca != 0 && cb != 0:
					return ca < cb
				case ca != 0 || cb != 0:
					return ca != 0
				default:
					return first[ha.name] < first[hb.name]
				}
			})
			for _, i := range idx {
				h := l.h[i]
				if id := commonHeaderID[h.name]; id != 0 {
					w.Uint32(id)
				} else {
					w.Uint32(0)
					w.String(h.name)
				}
				w.String(h.val)
			}
			return nil
		},
		Read: func(r *clone.HostReader) (goja.Value, error) {
			guard := r.Uint32()
			if guard > guardNone {
				return nil, fmt.Errorf("bad headers guard %d", guard)
			}
			n := r.Uint32()
			l := &headerList{immutable: guard != guardNone}
			for i := uint32(0); i < n; i++ {
				var name string
				switch id := r.Uint32(); {
				case id == 0:
					name = r.String()
				case int(id) < len(commonHeaders):
					name = commonHeaders[id]
				default:
					return nil, fmt.Errorf("bad common header id %d", id)
				}
				lname, err := headerName(rt.ToValue(name))
				if err != nil {
					return nil, err
				}
				h, err := headerValue(rt.ToValue(r.String()))
				if err != nil {
					return nil, err
				}
				h.name = strings.Clone(lname)
				l.h = append(l.h, h)
			}
			return wrapFn(goja.Undefined(), rt.NewDynamicObject(l), goja.Null())
		},
	})
}

package web

import (
	"strconv"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/internal/whatwgurl"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// urlNatives are URL's and URLSearchParams' natives, over internal/whatwgurl.
func urlNatives(rt *goja.Runtime, st *state, n natives) {
	// urlParse(input, baseHref|undefined) → record array or null
	n.set("urlParse", func(c goja.FunctionCall) goja.Value {
		if goja.IsUndefined(c.Argument(1)) {
			return st.urlRecord(rt, c.Argument(0).String())
		}
		var base *whatwgurl.URL
		if b := c.Argument(1); !goja.IsUndefined(b) {
			bu, err := whatwgurl.Parse(b.String(), nil)
			if err != nil {
				return goja.Null()
			}
			base = bu
		}
		u, err := whatwgurl.Parse(c.Argument(0).String(), base)
		if err != nil {
			return goja.Null()
		}
		return recordOf(rt, u)
	})
	// urlSet(href, component, value) → record array (unchanged on failure)
	n.set("urlSet", func(c goja.FunctionCall) goja.Value {
		u, err := whatwgurl.Parse(c.Argument(0).String(), nil)
		if err != nil {
			return goja.Null()
		}
		nu := whatwgurl.SetComponent(u, c.Argument(1).String(), c.Argument(2).String())
		if nu == nil {
			return goja.Null()
		}
		return recordOf(rt, nu)
	})
	n.set("domainToASCII", func(c goja.FunctionCall) goja.Value {
		h, err := whatwgurl.ParseHost(c.Argument(0).String(), false)
		if err != nil {
			return rt.ToValue("")
		}
		return rt.ToValue(h)
	})
	// formParse(str) → flat [k, v, ...]
	n.setE("formParse", func(c goja.FunctionCall) (goja.Value, error) {
		s := c.Argument(0).String()
		// new URLSearchParams("a&".repeat(4e6)) makes 8 million strings
		// and array slots in this one call: the object's memory limit
		// approves them first (the goja fork's allocation hook; issue 23),
		// about 64 bytes a name or value besides their text.
		if len(s) >= 1<<16 {
			if err := jserr.Allocate(rt, int64(strings.Count(s, "&")+1)*2*64, goja.AllocArray); err != nil {
				return nil, err
			}
		}
		pairs := whatwgurl.ParseForm(s)
		out := make([]interface{}, len(pairs))
		for i, p := range pairs {
			out[i] = p
		}
		return rt.NewArray(out...), nil
	})
	// formGet(str, name) → the first value of name, null, or undefined when
	// name is not ASCII (the caller then compares UTF-16 names itself)
	n.set("formGet", func(c goja.FunctionCall) goja.Value {
		name := c.Argument(1).String()
		for i := 0; i < len(name); i++ {
			if name[i] >= 0x80 {
				return goja.Undefined()
			}
		}
		pairs := whatwgurl.ParseForm(c.Argument(0).String())
		for i := 0; i+1 < len(pairs); i += 2 {
			if pairs[i] == name {
				return rt.ToValue(pairs[i+1])
			}
		}
		return goja.Null()
	})
	// formSerialize(flat [k, v, ...]) → string
	n.set("formSerialize", func(c goja.FunctionCall) goja.Value {
		arr := c.Argument(0).ToObject(rt)
		n := int(arr.Get("length").ToInteger())
		var b strings.Builder
		for i := 0; i+1 < n; i += 2 {
			if i > 0 {
				b.WriteByte('&')
			}
			whatwgurl.WriteFormEncoded(&b, arr.Get(strconv.Itoa(i)).String())
			b.WriteByte('=')
			whatwgurl.WriteFormEncoded(&b, arr.Get(strconv.Itoa(i+1)).String())
		}
		return rt.ToValue(b.String())
	})
}

func recordOf(rt *goja.Runtime, u *whatwgurl.URL) goja.Value {
	query := goja.Null()
	if q, ok := u.Query(); ok {
		query = rt.ToValue(q)
	}
	return rt.NewArray(u.Href(), u.Protocol(), u.Username(), u.Password(), u.Host(), u.Hostname(), u.Port(),
		u.Pathname(), u.Search(), u.Hash(), u.Origin(), query)
}

// urlRecord is native.urlParse(input) without a base: the record array,
// or null. Records are never modified by url.js, so recent ones are shared.
func (st *state) urlRecord(rt *goja.Runtime, input string) goja.Value {
	return st.records.get(rt, input, parseRecord)
}

func parseRecord(rt *goja.Runtime, input string) goja.Value {
	if u, err := whatwgurl.Parse(input, nil); err == nil {
		return recordOf(rt, u)
	}
	return goja.Null()
}

package web

import (
	"strings"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// localeData returns the resolved CLDR data serving a tag.
func cldrData(tag string) cldr.Data {
	return cldr.Locale(cldr.DataLocale(tag))
}

// relativeData is CLDR's relative time data of a unit for
// RelativeTimeFormat: relative-type-N strings, future and past patterns
// by plural category.
func relativeData(tag, unit, style string) map[string]any {
	key := unit
	if style != "long" {
		key += "-" + style
	}
	d := cldrData(tag)
	f := d.Map("fields", key)
	if f == nil {
		f = d.Map("fields", unit)
	}
	out := map[string]any{}
	rel := map[string]any{}
	for k, v := range f {
		if n, ok := strings.CutPrefix(k, "relative-type-"); ok {
			rel[n] = v
		}
	}
	out["rel"] = rel
	for _, dir := range []string{"future", "past"} {
		m := map[string]any{}
		pats, _ := f["relativeTime-type-"+dir].(map[string]any)
		for k, v := range pats {
			if c, ok := strings.CutPrefix(k, "relativeTimePattern-count-"); ok {
				m[c] = v
			}
		}
		out[dir] = m
	}
	return out
}

// listData is CLDR's list patterns (start, middle, end, 2) for a type
// and style.
func listData(tag, typ, style string) map[string]any {
	key := "listPattern-type-" + map[string]string{"conjunction": "standard", "disjunction": "or", "unit": "unit"}[typ]
	if style != "long" {
		key += "-" + style
	}
	d := cldrData(tag)
	m := d.Map("listPatterns", key)
	if m == nil {
		m = d.Map("listPatterns", "listPattern-type-standard")
	}
	return m
}

func dataNatives(rt *goja.Runtime, n natives) {
	// intlRelativeData(locale, unit, style) → {rel, future, past}
	n.set("intlRelativeData", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(relativeData(c.Argument(0).String(), c.Argument(1).String(), c.Argument(2).String()))
	})
	// intlListData(locale, type, style) → {start, middle, end, 2}
	n.set("intlListData", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(listData(c.Argument(0).String(), c.Argument(1).String(), c.Argument(2).String()))
	})
}

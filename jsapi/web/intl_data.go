package web

import (
	"sort"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

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

var weekdayNumber = map[string]int{"mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6, "sun": 7}

// regionOf is a tag's region, or its likely one.
func regionOf(tag string) string {
	t := cldr.ParseTag(tag)
	if t.Region != "" {
		return t.Region
	}
	max, _ := cldr.Maximize(t)
	return max.Region
}

func weekDay(kind, region string) string {
	w := cldr.Supplemental().Map("weekData", kind)
	if s, ok := w[region].(string); ok {
		return s
	}
	s, _ := w["001"].(string)
	return s
}

// weekInfo is Intl.Locale.prototype.getWeekInfo: CLDR's weekData.
func weekInfo(tag string) map[string]any {
	r := regionOf(tag)
	first := weekdayNumber[weekDay("firstDay", r)]
	if fw := unicodeKeyword(tag, "fw"); fw != "" {
		if n, ok := weekdayNumber[fw]; ok {
			first = n
		}
	}
	start, end := weekdayNumber[weekDay("weekendStart", r)], weekdayNumber[weekDay("weekendEnd", r)]
	var weekend []any
	for d := start; ; d = d%7 + 1 {
		weekend = append(weekend, d)
		if d == end || len(weekend) > 7 {
			break
		}
	}
	return map[string]any{"firstDay": first, "weekend": weekend}
}

func unicodeKeyword(tag, key string) string {
	_, ext, ok := strings.Cut(tag, "-u-")
	if !ok {
		return ""
	}
	parts := strings.Split(ext, "-")
	for i, p := range parts {
		if p == key && i+1 < len(parts) && len(parts[i+1]) > 2 {
			return parts[i+1]
		}
	}
	return ""
}

// calendars is getCalendars: CLDR's calendarPreferenceData by region,
// in BCP 47 names.
func calendars(tag string) []any {
	cp := cldr.Supplemental().Map("calendarPreferenceData")
	l, ok := cp[regionOf(tag)].([]any)
	if !ok {
		l, _ = cp["001"].([]any)
	}
	var out []any
	for _, c := range l {
		s := c.(string)
		if s == "gregorian" {
			s = "gregory"
		} else if s == "ethiopic-amete-alem" {
			s = "ethioaa"
		}
		out = append(out, s)
	}
	return out
}

// timeZonesOf is getTimeZones: a region's zones, sorted (undefined
// without a region).
func timeZonesOf(tag string) []any {
	r := cldr.ParseTag(tag).Region
	if r == "" {
		return nil
	}
	out := []any{}
	for _, z := range regionZones(r) {
		out = append(out, z)
	}
	return out
}

// supportedValues is Intl.supportedValuesOf for currency (CLDR's
// currencies in use: 153; V8 lists ICU's own table, 159: it still has
// ANG BGN CUC HRK SLL SVC ZWL and the non-tender XDR XSU, and lacks the
// newer SLE XCG ZWG),
// numberingSystem (numeric systems) and timeZone (CLDR's zone ids),
// sorted.
func supportedValues(key string) []any {
	set := map[string]bool{}
	sup := cldr.Supplemental()
	switch key {
	case "currency":
		for _, c := range sup.List("currencyCurrent") {
			set[c.(string)] = true
		}
	case "numberingSystem":
		for nu, v := range sup.Map("numberingSystems") {
			if m, ok := v.(map[string]any); ok && m["_type"] == "numeric" {
				set[nu] = true
			}
		}
	case "timeZone":
		// CLDR's canonical ids, as V8 lists them ("Africa/Asmera")
		for id := range sup.Map("zoneIANA") {
			if !strings.HasPrefix(id, "Etc/") {
				set[id] = true
			}
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out
}

func localeNatives(rt *goja.Runtime, n natives) {
	n.set("intlSupportedValues", func(c goja.FunctionCall) goja.Value { return rt.NewArray(supportedValues(c.Argument(0).String())...) })
	n.set("intlWeekInfo", func(c goja.FunctionCall) goja.Value {
		w := weekInfo(c.Argument(0).String())
		o := rt.NewObject()
		o.Set("firstDay", w["firstDay"])
		o.Set("weekend", rt.NewArray(w["weekend"].([]any)...))
		return o
	})
	n.set("intlCalendars", func(c goja.FunctionCall) goja.Value { return rt.NewArray(calendars(c.Argument(0).String())...) })
	n.set("intlTimeZones", func(c goja.FunctionCall) goja.Value {
		l := timeZonesOf(c.Argument(0).String())
		if l == nil {
			return goja.Undefined()
		}
		return rt.NewArray(l...)
	})
	// intlLocaleParts(tag) → [language, script, region, base]
	n.set("intlLocaleParts", func(c goja.FunctionCall) goja.Value {
		s := c.Argument(0).String()
		base := s
		if i := strings.Index(base, "-u-"); i >= 0 {
			base = base[:i]
		}
		if i := strings.Index(base, "-x-"); i >= 0 {
			base = base[:i]
		}
		t := cldr.ParseTag(base)
		return rt.NewArray(t.Lang, t.Script, t.Region, base)
	})
	// intlLikely(tag, maximize) → the tag with likely subtags added or removed
	n.set("intlLikely", func(c goja.FunctionCall) goja.Value {
		s := c.Argument(0).String()
		rest := ""
		base := s
		for _, sep := range []string{"-u-", "-x-"} {
			if i := strings.Index(base, sep); i >= 0 {
				rest = base[i:] + rest
				base = base[:i]
			}
		}
		t := cldr.ParseTag(base)
		variants := strings.TrimPrefix(base, t.String())
		var out cldr.Tag
		if c.Argument(1).ToBoolean() {
			out, _ = cldr.Maximize(t)
		} else {
			out = cldr.Minimize(t)
		}
		return rt.ToValue(out.String() + variants + rest)
	})
	n.set("intlDirection", func(c goja.FunctionCall) goja.Value {
		t, _ := cldr.Maximize(cldr.ParseTag(c.Argument(0).String()))
		switch t.Script {
		case "Arab", "Hebr", "Thaa", "Syrc", "Nkoo", "Adlm", "Rohg", "Mand", "Samr":
			return rt.ToValue("rtl")
		}
		return rt.ToValue("ltr")
	})
}

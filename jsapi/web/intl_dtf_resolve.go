package web

import (
	"math"
	"strings"
	"sync"

	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/third_party/goja"
)

// dtfSpec is what DateTimeFormat's constructor read, as V8 passes it to
// ICU: the hour cycle and the components (or styles).
type dtfSpec struct {
	Locale       string // language-script-region
	NU           string
	CA           string // CLDR calendar name (resolveCalendar)
	HC           string // h11, h12, h23, h24 or "" (option or -u-hc)
	Hour12       string // "", "true", "false"
	Weekday      string
	Era          string
	Year         string
	Month        string
	Day          string
	DayPeriod    string
	Hour         string
	Minute       string
	Second       string
	FracDigits   int
	TimeZoneName string
	DateStyle    string
	TimeStyle    string
}

var hcChar = map[string]byte{"h11": 'K', "h12": 'h', "h23": 'H', "h24": 'k'}

func hcOfChar(c byte) string {
	switch c {
	case 'K':
		return "h11"
	case 'h':
		return "h12"
	case 'H':
		return "h23"
	case 'k':
		return "h24"
	}
	return ""
}

// replaceHourCycle is V8's ReplaceHourCycleInPattern.
func replaceHourCycle(p, hc string) string {
	r, ok := hcChar[hc]
	if !ok {
		return p
	}
	var sb strings.Builder
	replace := true
	var last byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '\'':
			replace = !replace
			sb.WriteByte(c)
		case 'H', 'h', 'K', 'k':
			if replace && last == 'd' {
				sb.WriteByte(' ')
			}
			if replace {
				sb.WriteByte(r)
			} else {
				sb.WriteByte(c)
			}
		default:
			sb.WriteByte(c)
		}
		last = c
	}
	return sb.String()
}

func patternHourCycle(p string) string {
	for _, it := range parsePattern(p) {
		if it.field {
			if hc := hcOfChar(it.ch); hc != "" {
				return hc
			}
		}
	}
	return ""
}

// dtfPattern is the ICU pattern V8 would use for spec.
func dtfPattern(s dtfSpec) string {
	l := getDTFLocale(s.Locale, s.NU, s.CA)
	defChar := l.hourChar
	if c, ok := hcChar[s.HC]; ok && s.Hour12 == "" {
		defChar = c
	}
	g := l.gen(defChar)
	hc := ""
	if s.Hour12 == "" {
		hc = s.HC
	} else {
		def := hcOfChar(defChar)
		if s.Hour12 == "true" {
			hc = "h12"
			if def == "h11" || def == "h12" {
				hc = def
			} else if l.lang == "ja" {
				hc = "h11"
			}
		} else {
			hc = "h23"
			if def == "h23" || def == "h24" {
				hc = def
			}
		}
	}
	if s.DateStyle != "" || s.TimeStyle != "" {
		p := stylePattern(l, s.DateStyle, s.TimeStyle)
		if hc == "" || hc == patternHourCycle(p) || s.TimeStyle == "" {
			return p
		}
		var sk strings.Builder
		for _, it := range parsePattern(p) {
			if !it.field || it.ch == 'a' || it.ch == 'b' || it.ch == 'B' {
				continue
			}
			c := it.ch
			if c == 'h' || c == 'H' || c == 'k' || c == 'K' {
				c = hcChar[hc]
			}
			sk.WriteString(strings.Repeat(string(c), it.n))
		}
		return replaceHourCycle(g.bestPattern(sk.String()), hc)
	}
	var sk strings.Builder
	add := func(v string, m map[string]string) {
		if v != "" {
			sk.WriteString(m[v])
		}
	}
	add(s.Weekday, map[string]string{"narrow": "EEEEE", "long": "EEEE", "short": "EEE"})
	add(s.Era, map[string]string{"narrow": "GGGGG", "long": "GGGG", "short": "GGG"})
	add(s.Year, map[string]string{"2-digit": "yy", "numeric": "y"})
	add(s.Month, map[string]string{"narrow": "MMMMM", "long": "MMMM", "short": "MMM", "2-digit": "MM", "numeric": "M"})
	add(s.Day, map[string]string{"2-digit": "dd", "numeric": "d"})
	if s.Hour != "" {
		c := "j"
		if hc != "" {
			c = string(hcChar[hc])
		}
		if s.Hour == "2-digit" {
			c += c
		}
		sk.WriteString(c)
	}
	// after the hour: 'j' maps to "ah" and the later B must win
	add(s.DayPeriod, map[string]string{"narrow": "BBBBB", "long": "BBBB", "short": "B"})
	add(s.Minute, map[string]string{"2-digit": "mm", "numeric": "m"})
	add(s.Second, map[string]string{"2-digit": "ss", "numeric": "s"})
	if s.FracDigits > 0 {
		sk.WriteString(strings.Repeat("S", s.FracDigits))
	}
	add(s.TimeZoneName, map[string]string{"long": "zzzz", "short": "z", "longOffset": "OOOO", "shortOffset": "O", "longGeneric": "vvvv", "shortGeneric": "v"})
	return replaceHourCycle(g.bestPattern(sk.String()), hc)
}

// stylePattern is ICU's DateFormat pattern for dateStyle/timeStyle.
func stylePattern(l *dtfLocale, ds, ts string) string {
	d := patternValue(l.calAt("dateFormats", ds))
	t := patternValue(l.calAt("timeFormats", ts))
	switch {
	case ds == "":
		return t
	case ts == "":
		return d
	}
	glue := l.greg("dateTimeFormats-atTime", "standard", ds)
	if glue == "" {
		glue = patternValue(l.calAt("dateTimeFormats", ds))
	}
	return strings.Replace(strings.Replace(glue, "{1}", d, 1), "{0}", t, 1)
}

// v8PatternItems is V8's table that resolvedOptions reads the pattern
// back with: per property, substrings of the pattern (quoted text
// included, as V8 searches the raw pattern: es "MMMM 'de' y" reports a
// day) and the value each gives.
var v8PatternItems = []struct {
	prop  string
	pairs [][2]string
}{
	{"weekday", [][2]string{{"EEEEE", "narrow"}, {"EEEE", "long"}, {"EEE", "short"}, {"ccccc", "narrow"}, {"cccc", "long"}, {"ccc", "short"}}},
	{"era", [][2]string{{"GGGGG", "narrow"}, {"GGGG", "long"}, {"GGG", "short"}}},
	{"year", [][2]string{{"yy", "2-digit"}, {"y", "numeric"}}},
	{"month", [][2]string{{"MMMMM", "narrow"}, {"MMMM", "long"}, {"MMM", "short"}, {"MM", "2-digit"}, {"M", "numeric"}, {"LLLLL", "narrow"}, {"LLLL", "long"}, {"LLL", "short"}, {"LL", "2-digit"}, {"L", "numeric"}}},
	{"day", [][2]string{{"dd", "2-digit"}, {"d", "numeric"}}},
	{"dayPeriod", [][2]string{{"BBBBB", "narrow"}, {"bbbbb", "narrow"}, {"BBBB", "long"}, {"bbbb", "long"}, {"B", "short"}, {"b", "short"}}},
	{"hour", [][2]string{{"HH", "2-digit"}, {"H", "numeric"}, {"hh", "2-digit"}, {"h", "numeric"}, {"kk", "2-digit"}, {"k", "numeric"}, {"KK", "2-digit"}, {"K", "numeric"}}},
	{"minute", [][2]string{{"mm", "2-digit"}, {"m", "numeric"}}},
	{"second", [][2]string{{"ss", "2-digit"}, {"s", "numeric"}}},
	{"timeZoneName", [][2]string{{"zzzz", "long"}, {"z", "short"}, {"OOOO", "longOffset"}, {"O", "shortOffset"}, {"vvvv", "longGeneric"}, {"v", "shortGeneric"}}},
}

// resolvedFromPattern is resolvedOptions' components as V8 reads them
// back from the pattern.
func resolvedFromPattern(p string) map[string]any {
	out := map[string]any{}
	for _, it := range parsePattern(p) {
		if !it.field {
			continue
		}
		if hc := hcOfChar(it.ch); hc != "" {
			out["hourCycle"] = hc
			out["hour12"] = it.ch == 'h' || it.ch == 'K'
			break
		}
	}
	for _, item := range v8PatternItems {
		if item.prop == "timeZoneName" {
			if n := strings.Count(p, "S"); n > 0 {
				out["fractionalSecondDigits"] = n
			}
		}
		for _, pair := range item.pairs {
			if strings.Contains(p, pair[0]) {
				out[item.prop] = pair[1]
				break
			}
		}
	}
	return out
}

// dtFormatter is a DateTimeFormat's resolved state on the Go side.
type dtFormatter struct {
	l       *dtfLocale
	pattern string
	items   []patItem
	z       *zoneInfo
}

var patternCache sync.Map // pattern → []patItem

// dtfResolution is what intlDateResolve answers for a dtfSpec (the
// pattern, the components resolvedOptions reports, the numbering system),
// kept per spec: a DateTimeFormat made again with the same locale and
// options skips the pattern generator (most of a construction's Go time).
// vals is never changed after it is built; each call copies it into a
// new object.
type dtfResolution struct {
	keys []string
	vals map[string]any
}

var dtfResolved = boundedCache[dtfSpec, dtfResolution]{max: 4096}

func cachedItems(p string) []patItem {
	if v, ok := patternCache.Load(p); ok {
		return v.([]patItem)
	}
	it := parsePattern(p)
	patternCache.Store(p, it)
	return it
}

func dtfNatives(rt *goja.Runtime, n natives) {
	// resolvedObjs keeps this runtime's answers of intlDateResolve per
	// spec (the JS side only reads them), so a construction with options
	// seen before builds no object; bounded as dtfResolved.
	resolvedObjs := map[dtfSpec]*goja.Object{}
	// intlDateResolve(spec) → {pattern, resolved components}
	n.setE("intlDateResolve", func(c goja.FunctionCall) (goja.Value, error) {
		o := c.Argument(0).ToObject(rt)
		str := func(k string) string {
			v := o.Get(k)
			if v == nil || goja.IsUndefined(v) {
				return ""
			}
			return v.String()
		}
		s := dtfSpec{
			Locale: str("Locale"), NU: str("NU"), CA: str("CA"), HC: str("HC"), Hour12: str("Hour12"),
			Weekday: str("Weekday"), Era: str("Era"), Year: str("Year"), Month: str("Month"), Day: str("Day"),
			DayPeriod: str("DayPeriod"), Hour: str("Hour"), Minute: str("Minute"), Second: str("Second"),
			FracDigits: int(o.Get("FracDigits").ToInteger()), TimeZoneName: str("TimeZoneName"),
			DateStyle: str("DateStyle"), TimeStyle: str("TimeStyle"),
		}
		r := dtfResolved.get(s, func() dtfResolution {
			p := dtfPattern(s)
			r := resolvedFromPattern(p)
			r["pattern"] = p
			r["numberingSystem"] = getDTFLocale(s.Locale, s.NU, s.CA).numSys
			keys := make([]string, 0, len(r))
			for k := range r {
				keys = append(keys, k)
			}
			return dtfResolution{keys: keys, vals: r}
		})
		if o, ok := resolvedObjs[s]; ok {
			return o, nil
		}
		out := rt.NewObject()
		for _, k := range r.keys {
			out.Set(k, r.vals[k])
		}
		if len(resolvedObjs) < 512 {
			resolvedObjs[s] = out
		}
		return out, nil
	})
	// intlDateFormatter(locale, nu, ca, pattern, timeZone) → a handle of
	// what format needs, resolved once per DateTimeFormat
	n.setE("intlDateFormatter", func(c goja.FunctionCall) (goja.Value, error) {
		z, err := resolveZone(c.Argument(4).String())
		if err != nil {
			return nil, err
		}
		l := getDTFLocale(c.Argument(0).String(), c.Argument(1).String(), c.Argument(2).String())
		p := c.Argument(3).String()
		return rt.ToValue(&dtFormatter{l: l, pattern: p, items: cachedItems(p), z: z}), nil
	})
	formatter := func(v goja.Value) *dtFormatter {
		f, _ := v.Export().(*dtFormatter)
		if f == nil {
			panic(rt.NewTypeError("not a DateTimeFormat"))
		}
		return f
	}
	// intlDateFormat(f, ms) → flat [type, value, ...]
	n.set("intlDateFormat", func(c goja.FunctionCall) goja.Value {
		f := formatter(c.Argument(0))
		ps := f.l.formatPattern(f.items, int64(c.Argument(1).ToFloat()), f.z)
		out := make([]interface{}, 0, 2*len(ps))
		for _, p := range ps {
			out = append(out, p.typ, p.val)
		}
		return rt.NewArray(out...)
	})
	// intlDateString(f, ms) → the formatted string
	n.set("intlDateString", func(c goja.FunctionCall) goja.Value {
		f := formatter(c.Argument(0))
		return rt.ToValue(f.l.formatString(f.items, int64(c.Argument(1).ToFloat()), f.z))
	})
	// intlDateBound(f, now) → the bound format function of a
	// DateTimeFormat: a native function (length 1, name "") that reads
	// the date and formats it in Go, so a call costs one native call
	// instead of a JS closure, a JS dateValue and a native lookup (now:
	// the realm's original Date.now, for format() without a date).
	n.set("intlDateBound", func(c goja.FunctionCall) goja.Value {
		f := formatter(c.Argument(0))
		now, _ := goja.AssertFunction(c.Argument(1))
		fn := rt.ToValue(func(c goja.FunctionCall) goja.Value {
			var x float64
			if d := c.Argument(0); goja.IsUndefined(d) {
				v, err := now(goja.Undefined())
				if err != nil {
					panic(err)
				}
				x = v.ToFloat()
			} else {
				x = d.ToFloat()
			}
			if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 8.64e15 {
				jserr.Throw(rt, jserr.RangeError("Invalid time value"))
			}
			return rt.ToValue(f.l.formatString(f.items, int64(x), f.z))
		}).(*goja.Object)
		_ = fn.DefineDataProperty("length", rt.ToValue(1), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		_ = fn.DefineDataProperty("name", rt.ToValue(""), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		return fn
	})
	// intlDateRange(f, a, b) → flat [type, value, source, ...]
	n.set("intlDateRange", func(c goja.FunctionCall) goja.Value {
		f := formatter(c.Argument(0))
		ps := f.l.formatRange(f.pattern, int64(c.Argument(1).ToFloat()), int64(c.Argument(2).ToFloat()), f.z)
		out := make([]interface{}, 0, 3*len(ps))
		for _, p := range ps {
			out = append(out, p.typ, p.val, p.src)
		}
		return rt.NewArray(out...)
	})
	// intlCalendar(locale, requested) → the CLDR calendar a DateTimeFormat uses
	n.set("intlCalendar", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(resolveCalendar(c.Argument(0).String(), c.Argument(1).String()))
	})
	// intlCalendarName(cldr name) → its BCP 47 name
	n.set("intlCalendarName", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(bcp47Calendar(c.Argument(0).String()))
	})
	// intlZoneId(name) → the id resolvedOptions reports (RangeError if unknown)
	n.setE("intlZoneId", func(c goja.FunctionCall) (goja.Value, error) {
		z, err := resolveZone(c.Argument(0).String())
		if err != nil {
			return nil, err
		}
		return rt.ToValue(z.id), nil
	})
	// intlNumberingSystem(name) → whether it is a numeric numbering system
	n.set("intlNumberingSystem", func(c goja.FunctionCall) goja.Value {
		nu := c.Argument(0).String()
		return rt.ToValue(nu == "latn" || numberingDigits(nu) != nil)
	})
	// intlDefaultHourCycle(locale) → h11|h12|h23|h24
	n.set("intlDefaultHourCycle", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(hcOfChar(getDTFLocale(c.Argument(0).String(), "", "").hourChar))
	})
}

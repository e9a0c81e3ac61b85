package web

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/rivo/uniseg"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/cellhost/cellhost/jsapi/jserr"
	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// Intl for goja, which has none. Locale data is CLDR 48's (package cldr,
// generated from the npm cldr-json packages at the CLDR of workerd's ICU
// 78): numbers (intl_number.go), dates (intl_dtf*.go, intl_dtpg.go),
// plural rules (intl_plural.go), relative times, lists and names
// (intl_data.go). Tags and collation come from golang.org/x/text;
// segmentation from rivo/uniseg (UAX #29).

// numOpts are a NumberFormat's resolved options that formatting reads.
type numOpts struct {
	Locale           string
	Style            string // decimal, percent, currency, unit
	Currency         string
	CurrencyDisplay  string // symbol, narrowSymbol, code, name
	Unit             string
	UnitDisplay      string
	MinInt           int
	MinFrac, MaxFrac int
	MinSig, MaxSig   int    // 0: not set
	UseGrouping      string // auto, always, min2, false
	Notation         string // standard, compact, scientific, engineering
	CompactDisplay   string
	SignDisplay      string
	CurrencySign     string
	Exact            string // |x| as decimal digits (a BigInt), or ""
	NU               string // numbering system ("" for the locale's)
	RoundingMode     string
	Priority         string // roundingPriority
	TrailingZero     string // trailingZeroDisplay
	neg              bool
}

// decimalDigits returns the decimal digits of |x| (no leading zeros) and
// the position of the decimal point: x = 0.digits * 10^exp.
func decimalDigits(x float64) (string, int) {
	s := strconv.FormatFloat(math.Abs(x), 'e', -1, 64)
	mant, e, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(e)
	digits := strings.Replace(mant, ".", "", 1)
	if digits == "0" {
		return "", 0
	}
	return digits, exp + 1
}

// part is one piece of formatToParts.
type part struct{ typ, val string }

// rpart is a part of a range, with its source (startRange, endRange, shared).
type rpart struct{ typ, val, src string }

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// canonicalLocale parses and canonicalizes one BCP 47 tag as
// Intl.getCanonicalLocales does.
func canonicalLocale(s string) (string, error) {
	if s == "" || strings.ContainsAny(s, " _") {
		return "", jserr.RangeError("Invalid language tag: " + s)
	}
	t, err := language.Parse(s)
	if err != nil {
		// x/text knows only registered subtags; ICU takes any well-formed tag
		if c, ok := wellFormedTag(s); ok {
			return c, nil
		}
		return "", jserr.RangeError("Invalid language tag: " + s)
	}
	return t.String(), nil
}

var wellFormed = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-(?:[A-Za-z]{2}|[0-9]{3}))?(-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$`)

// wellFormedTag canonicalizes the case of a well-formed language tag
// (language lower, script title, region upper).
func wellFormedTag(s string) (string, bool) {
	if !wellFormed.MatchString(s) {
		return "", false
	}
	parts := strings.Split(s, "-")
	parts[0] = strings.ToLower(parts[0])
	for i := 1; i < len(parts); i++ {
		p := parts[i]
		switch {
		case len(p) == 4 && isASCIILetter(p[0]) && i == 1:
			parts[i] = strings.ToUpper(p[:1]) + strings.ToLower(p[1:])
		case len(p) == 2 || len(p) == 3 && p[0] >= '0' && p[0] <= '9':
			parts[i] = strings.ToUpper(p)
		default:
			parts[i] = strings.ToLower(p)
		}
	}
	return strings.Join(parts, "-"), true
}

var collators lazyCache[string, *collate.Collator]

// collator returns a cached collator for the locale and options.
func collator(locale, sensitivity string, numeric, ignorePunctuation bool) *collate.Collator {
	key := locale + "|" + sensitivity + "|" + strconv.FormatBool(numeric) + strconv.FormatBool(ignorePunctuation)
	return collators.get(key, func() *collate.Collator { return newCollator(locale, sensitivity, numeric, ignorePunctuation) })
}

func newCollator(locale, sensitivity string, numeric, ignorePunctuation bool) *collate.Collator {
	tag, err := language.Parse(locale)
	if err != nil {
		tag = language.English
	}
	var opts []collate.Option
	switch sensitivity {
	case "base":
		opts = append(opts, collate.IgnoreCase, collate.IgnoreDiacritics, collate.IgnoreWidth)
	case "accent":
		opts = append(opts, collate.IgnoreCase, collate.IgnoreWidth)
	case "case":
		opts = append(opts, collate.IgnoreDiacritics, collate.IgnoreWidth)
	}
	if numeric {
		opts = append(opts, collate.Numeric)
	}
	if ignorePunctuation {
		opts = append(opts, collate.Loose)
	}
	return collate.New(tag, opts...)
}

// segments splits s by granularity (grapheme, word, sentence); for words
// it reports which segments are word-like.
func segments(s, granularity string) (segs []string, wordLike []bool) {
	switch granularity {
	case "word":
		state := -1
		rest := s
		for len(rest) > 0 {
			var w string
			w, rest, state = uniseg.FirstWordInString(rest, state)
			segs = append(segs, w)
			wl := false
			for _, r := range w {
				if r == '_' || r >= '0' && r <= '9' || isLetter(r) {
					wl = true
					break
				}
			}
			wordLike = append(wordLike, wl)
		}
	case "sentence":
		state := -1
		rest := s
		for len(rest) > 0 {
			var w string
			w, rest, state = uniseg.FirstSentenceInString(rest, state)
			segs = append(segs, w)
		}
	default:
		g := uniseg.NewGraphemes(s)
		for g.Next() {
			segs = append(segs, g.Str())
		}
	}
	return segs, wordLike
}

func isLetter(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f && !strings.ContainsRune("\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000\u2018\u2019\u201c\u201d\u2026\u2013\u2014\u00ab\u00bb\u3001\u3002", r)
}

// intlNatives are Intl's natives.
func intlNatives(rt *goja.Runtime, n natives) {
	// intlCanonical(tag) → canonical tag (RangeError if invalid)
	n.setE("intlCanonical", func(c goja.FunctionCall) (goja.Value, error) {
		s, err := canonicalLocale(c.Argument(0).String())
		if err != nil {
			return nil, err
		}
		return rt.ToValue(s), nil
	})
	// intlLookup(tag) → the longest supported prefix of tag (without
	// extensions) as ICU's available locales give it, or ""
	n.set("intlLookup", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(cldr.Lookup(c.Argument(0).String()))
	})
	// intlNumber(x, opts) → flat [type, value, ...]
	n.setE("intlNumber", func(c goja.FunctionCall) (goja.Value, error) {
		var o numOpts
		if err := rt.ExportTo(c.Argument(1), &o); err != nil {
			return nil, err
		}
		ps := formatNumber(c.Argument(0).ToFloat(), o)
		out := make([]interface{}, 0, 2*len(ps))
		for _, p := range ps {
			out = append(out, p.typ, p.val)
		}
		return rt.NewArray(out...), nil
	})
	// intlNumberRange(flatA, flatB, locale, nu) → flat [type, value, source, ...]
	n.set("intlNumberRange", func(c goja.FunctionCall) goja.Value {
		read := func(v goja.Value) []part {
			var flat []string
			rt.ExportTo(v, &flat)
			var ps []part
			for i := 0; i+1 < len(flat); i += 2 {
				ps = append(ps, part{typ: flat[i], val: flat[i+1]})
			}
			return ps
		}
		ps := numberRange(read(c.Argument(0)), read(c.Argument(1)), c.Argument(2).String(), c.Argument(3).String())
		out := make([]interface{}, 0, 3*len(ps))
		for _, p := range ps {
			out = append(out, p.typ, p.val, p.src)
		}
		_ = rpart{}
		return rt.NewArray(out...)
	})
	// intlCurrencyDigits(code) → ISO 4217 minor units (CLDR currencyData)
	n.set("intlCurrencyDigits", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(currencyDigitsData(c.Argument(0).String()))
	})
	// intlNumberingSystemOf(locale, nu) → the numbering system used
	n.set("intlNumberingSystemOf", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(numberingSystemOf(c.Argument(0).String(), c.Argument(1).String()))
	})
	// intlCompare(locale, sensitivity, numeric, ignorePunctuation, a, b) → -1|0|1
	n.set("intlCompare", func(c goja.FunctionCall) goja.Value {
		col := collator(c.Argument(0).String(), c.Argument(1).String(), c.Argument(2).ToBoolean(), c.Argument(3).ToBoolean())
		return rt.ToValue(col.CompareString(c.Argument(4).String(), c.Argument(5).String()))
	})
	// intlPluralCategories(locale, ordinal) → categories in CLDR order
	n.set("intlPluralCategories", func(c goja.FunctionCall) goja.Value {
		cats := pluralCategories(c.Argument(0).String(), c.Argument(1).ToBoolean())
		out := make([]interface{}, len(cats))
		for i, s := range cats {
			out[i] = s
		}
		return rt.NewArray(out...)
	})
	// intlPluralRange(locale, start, end) → category
	n.set("intlPluralRange", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(pluralRange(c.Argument(0).String(), c.Argument(1).String(), c.Argument(2).String()))
	})
	// intlPlural(locale, ordinal, n, minFrac, maxFrac) → category
	n.set("intlPlural", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(pluralCategory(c.Argument(0).String(), c.Argument(1).ToBoolean(), c.Argument(2).ToFloat(), int(c.Argument(3).ToInteger()), int(c.Argument(4).ToInteger())))
	})
	// intlSegment(str, granularity) → flat [segment, index, wordLike, ...]
	// (index in UTF-16 code units)
	n.set("intlSegment", func(c goja.FunctionCall) goja.Value {
		segs, wl := segments(c.Argument(0).String(), c.Argument(1).String())
		out := make([]interface{}, 0, 3*len(segs))
		idx := 0
		for i, s := range segs {
			var w interface{}
			if wl != nil {
				w = wl[i]
			}
			out = append(out, s, idx, w)
			for _, r := range s {
				if r > 0xffff {
					idx += 2
				} else {
					idx++
				}
			}
		}
		return rt.NewArray(out...)
	})
	// intlDisplayName(locale, type, code, languageDisplay) → [canonical code, name or ""]
	// (RangeError "invalid_argument" when code is not one of type's)
	n.setE("intlDisplayName", func(c goja.FunctionCall) (goja.Value, error) {
		canon, name, err := displayName(c.Argument(0).String(), c.Argument(1).String(), c.Argument(2).String(), c.Argument(3).String(), c.Argument(4).String())
		if err != nil {
			return nil, err
		}
		return rt.NewArray(canon, name), nil
	})
	dtfNatives(rt, n)
	dataNatives(rt, n)
	localeNatives(rt, n)
}

func displayName(locale, typ, code, languageDisplay, style string) (canon, name string, err error) {
	invalid := jserr.RangeError("invalid_argument")
	d := cldrData(locale)
	names := func(kind, key string) string {
		if style != "long" {
			if s := d.Str("localeDisplayNames", kind, key+"-alt-"+style); s != "" {
				return s
			}
			if s := d.Str("localeDisplayNames", kind, key+"-alt-short"); s != "" && style == "narrow" {
				return s
			}
		}
		return d.Str("localeDisplayNames", kind, key)
	}
	switch typ {
	case "region":
		r, err := language.ParseRegion(code)
		if err != nil {
			return "", "", invalid
		}
		return r.String(), names("territories", r.String()), nil
	case "script":
		sc, err := language.ParseScript(code)
		if err != nil {
			return "", "", invalid
		}
		return sc.String(), names("scripts", sc.String()), nil
	case "language":
		c, err := canonicalLocale(code)
		if err != nil || strings.Contains(c, "-u-") || strings.Contains(c, "-x-") {
			return "", "", invalid
		}
		t := cldr.ParseTag(c)
		if languageDisplay == "dialect" {
			for _, k := range []string{c, t.Lang + "-" + t.Script + "-" + t.Region, t.Lang + "-" + t.Region, t.Lang + "-" + t.Script} {
				if n := names("languages", k); n != "" && k != t.Lang {
					rest := strings.TrimPrefix(c, k)
					if rest == "" {
						return c, n, nil
					}
				}
			}
		}
		base := names("languages", t.Lang)
		if base == "" {
			return c, "", nil
		}
		var extra []string
		if t.Script != "" {
			if s := names("scripts", t.Script); s != "" {
				extra = append(extra, s)
			} else {
				extra = append(extra, t.Script)
			}
		}
		if t.Region != "" {
			if s := names("territories", t.Region); s != "" {
				extra = append(extra, s)
			} else {
				extra = append(extra, t.Region)
			}
		}
		if len(extra) == 0 {
			return c, base, nil
		}
		sep := d.Str("localeDisplayNames", "localeDisplayPattern", "localeSeparator")
		joined := extra[0]
		for _, x := range extra[1:] {
			joined = strings.Replace(strings.Replace(sep, "{0}", joined, 1), "{1}", x, 1)
		}
		pat := d.Str("localeDisplayNames", "localeDisplayPattern", "localePattern")
		return c, strings.Replace(strings.Replace(pat, "{0}", base, 1), "{1}", joined, 1), nil
	case "currency":
		if len(code) != 3 || !isASCIILetter(code[0]) || !isASCIILetter(code[1]) || !isASCIILetter(code[2]) {
			return "", "", invalid
		}
		u := strings.ToUpper(code)
		return u, d.Str("currencies", u, "displayName"), nil
	case "calendar":
		k := strings.ToLower(code)
		if k == "gregory" {
			k = "gregorian"
		}
		return strings.ToLower(code), d.Str("localeDisplayNames", "types", "calendar", k), nil
	case "dateTimeField":
		key := map[string]string{"era": "era", "year": "year", "quarter": "quarter", "month": "month", "weekOfYear": "week", "weekday": "weekday", "day": "day", "dayPeriod": "dayperiod", "hour": "hour", "minute": "minute", "second": "second", "timeZoneName": "zone"}[code]
		if key == "" {
			return "", "", invalid
		}
		if style != "long" {
			if s := d.Str("fields", key+"-"+style, "displayName"); s != "" {
				return code, s, nil
			}
		}
		return code, d.Str("fields", key, "displayName"), nil
	}
	return "", "", invalid
}

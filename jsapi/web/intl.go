package web

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/rivo/uniseg"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/cellhost/cellhost/jsapi/jserr"
	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// Intl for goja, which has none. Tags, plural rules and collation come
// from golang.org/x/text (CLDR); segmentation from rivo/uniseg (UAX #29);
// number and date formatting are written here for the locales of
// intlLocales, with the outputs ICU (workerd) gives for them. A locale
// outside the table formats as en-US does (its tag is still reported).

// numberLocale holds what number formatting needs of a locale.
type numberLocale struct {
	decimal, group string
	minGrouping    int    // 2: no separator in 4-digit integers (es, pl)
	indian         bool   // 12,34,567
	minus          string // "-" or U+2212
	percent        string // the pattern's suffix: "%", "\u00a0%", "\u202f%"
	currencyAfter  bool   // "1.234,57 €" rather than "€1,234.57"
	currencySpace  string // between symbol and number ("" for en)
}

var numberLocales = map[string]numberLocale{
	"en": {decimal: ".", group: ",", minus: "-", percent: "%"},
	"de": {decimal: ",", group: ".", minus: "-", percent: "\u00a0%", currencyAfter: true, currencySpace: "\u00a0"},
	"fr": {decimal: ",", group: "\u202f", minus: "-", percent: "\u00a0%", currencyAfter: true, currencySpace: "\u00a0"},
	"es": {decimal: ",", group: ".", minGrouping: 2, minus: "-", percent: "\u00a0%", currencyAfter: true, currencySpace: "\u00a0"},
	"it": {decimal: ",", group: ".", minGrouping: 2, minus: "-", percent: "%", currencyAfter: true, currencySpace: "\u00a0"},
	"pt": {decimal: ",", group: ".", minus: "-", percent: "%", currencySpace: "\u00a0"},
	"nl": {decimal: ",", group: ".", minus: "-", percent: "%", currencySpace: "\u00a0"},
	"ru": {decimal: ",", group: "\u00a0", minus: "-", percent: "\u00a0%", currencyAfter: true, currencySpace: "\u00a0"},
	"sv": {decimal: ",", group: "\u00a0", minus: "\u2212", percent: "\u00a0%", currencyAfter: true, currencySpace: "\u00a0"},
	"pl": {decimal: ",", group: "\u00a0", minGrouping: 2, minus: "-", percent: "%", currencyAfter: true, currencySpace: "\u00a0"},
	"ja": {decimal: ".", group: ",", minus: "-", percent: "%"},
	"zh": {decimal: ".", group: ",", minus: "-", percent: "%"},
	"ko": {decimal: ".", group: ",", minus: "-", percent: "%"},
	"hi": {decimal: ".", group: ",", minus: "-", percent: "%", indian: true},
}

// intlLocales lists the languages formatted as ICU does; other tags are
// accepted and format as en.
func localeData(tag string) (numberLocale, string) {
	base, _, _ := strings.Cut(tag, "-")
	nl, ok := numberLocales[base]
	if !ok {
		return numberLocales["en"], "en"
	}
	if tag == "en-IN" || base == "hi" {
		nl.indian = true
	}
	return nl, base
}

// currencySymbol is the symbol ICU shows for code in locale tag.
func currencySymbol(tag, code string, narrow bool) string {
	base, region, _ := strings.Cut(tag, "-")
	switch code {
	case "EUR":
		return "€"
	case "GBP":
		return "£"
	case "INR":
		return "₹"
	case "KRW":
		return "₩"
	case "USD":
		if base == "it" {
			return "USD"
		}
		if narrow || base == "en" && (region == "" || region == "US" || region == "IN") || base == "ja" || base == "de" || base == "nl" || base == "es" && region == "US" {
			return "$"
		}
		switch base {
		case "fr":
			return "$US"
		case "ru", "sv", "pl", "es":
			if base == "es" {
				return "US$"
			}
			return "$"
		}
		return "US$"
	case "JPY":
		if base == "ja" {
			return "￥"
		}
		if narrow || base == "en" || base == "de" || base == "nl" || base == "it" {
			return "¥"
		}
		return "JPY"
	case "CNY":
		if base == "zh" || narrow {
			return "¥"
		}
		return "CN¥"
	case "CAD":
		if narrow || tag == "en-CA" {
			return "$"
		}
		return "CA$"
	case "AUD":
		if narrow || tag == "en-AU" {
			return "$"
		}
		return "A$"
	case "BRL":
		return "R$"
	}
	return code
}

// currencyDigits is ISO 4217's number of minor units.
func currencyDigits(code string) int {
	switch code {
	case "JPY", "KRW", "VND", "CLP", "ISK", "UGX", "XAF", "XOF", "PYG", "HUF__":
		return 0
	case "BHD", "KWD", "OMR", "JOD", "TND", "IQD", "LYD":
		return 3
	}
	return 2
}

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

// roundDigits rounds digits (value 0.digits*10^exp) half away from zero
// to keep n digits in total; it returns the new digits and exponent.
func roundDigits(digits string, exp, n int) (string, int) {
	if n >= len(digits) {
		return digits, exp
	}
	if n < 0 {
		return "", exp
	}
	up := digits[n] >= '5'
	d := []byte(digits[:n])
	if up {
		i := n - 1
		for ; i >= 0; i-- {
			if d[i] == '9' {
				d[i] = '0'
				continue
			}
			d[i]++
			break
		}
		if i < 0 {
			d = append([]byte{'1'}, d...)
			exp++
		}
	}
	return strings.TrimRight(string(d), "0"), exp
}

// fixed formats |x| with the fraction and significant digit options:
// integer digits and fraction digits, as ASCII.
func fixed(x float64, o numOpts) (string, string) {
	digits, exp := decimalDigits(x)
	if o.Exact != "" {
		digits = strings.TrimLeft(o.Exact, "0")
		exp = len(digits)
		digits = strings.TrimRight(digits, "0")
	}
	if o.MaxSig > 0 {
		digits, exp = roundDigits(digits, exp, o.MaxSig)
	} else {
		digits, exp = roundDigits(digits, exp, exp+o.MaxFrac)
	}
	var ip, fp string
	switch {
	case digits == "":
		ip = "0"
	case exp <= 0:
		ip = "0"
		fp = strings.Repeat("0", -exp) + digits
	case exp >= len(digits):
		ip = digits + strings.Repeat("0", exp-len(digits))
	default:
		ip, fp = digits[:exp], digits[exp:]
	}
	minFrac := o.MinFrac
	if o.MaxSig > 0 {
		minFrac = 0
		if o.MinSig > 0 {
			sig := len(strings.TrimLeft(ip+fp, "0"))
			if ip == "0" {
				sig = len(strings.TrimLeft(fp, "0"))
			}
			if digits == "" {
				sig = 1 + len(fp)
			}
			if sig < o.MinSig {
				minFrac = len(fp) + o.MinSig - sig
			}
		}
	}
	for len(fp) < minFrac {
		fp += "0"
	}
	for len(ip) < o.MinInt {
		ip = "0" + ip
	}
	return ip, fp
}

// group inserts separators into integer digits per locale and option.
func group(ip string, nl numberLocale, useGrouping string) []string {
	if useGrouping == "false" {
		return []string{ip}
	}
	min := nl.minGrouping
	if useGrouping == "min2" {
		min = 2
	}
	if useGrouping == "always" {
		min = 1
	}
	if min < 1 {
		min = 1
	}
	if len(ip) < 4+min-1 {
		return []string{ip}
	}
	var groups []string
	s := ip
	first := true
	for {
		size := 3
		if nl.indian && !first {
			size = 2
		}
		if len(s) <= size {
			break
		}
		groups = append([]string{s[len(s)-size:]}, groups...)
		s = s[:len(s)-size]
		first = false
	}
	return append([]string{s}, groups...)
}

// part is one piece of formatToParts.
type part struct{ typ, val string }

type compactUnit struct {
	exp  int
	unit string // "" for no abbreviation at this size
}

// compactUnits are CLDR's short compact suffixes; the space before the
// suffix is compactSpace's (a no-break space outside en).
var compactUnits = map[string][]compactUnit{
	"en": {{12, "T"}, {9, "B"}, {6, "M"}, {3, "K"}},
	"de": {{12, "Bio."}, {9, "Mrd."}, {6, "Mio."}, {3, ""}},
	"fr": {{12, "Bn"}, {9, "Md"}, {6, "M"}, {3, "k"}},
	"es": {{12, "B"}, {9, "mil M"}, {6, "M"}, {3, "mil"}},
	"it": {{12, "Bln"}, {9, "Mrd"}, {6, "Mln"}, {3, "K"}},
	"pt": {{12, "tri"}, {9, "bi"}, {6, "mi"}, {3, "mil"}},
}

// formatNumber formats x as Intl.NumberFormat does with o.
func formatNumber(x float64, o numOpts) []part {
	nl, lang := localeData(o.Locale)
	accounting := false
	var parts []part
	neg := x < 0 || (x == 0 && math.Signbit(x))
	if o.Style == "percent" && !math.IsNaN(x) && !math.IsInf(x, 0) {
		x *= 100
	}
	var body []part
	var compactSuffix string
	switch {
	case math.IsNaN(x):
		body = []part{{"nan", "NaN"}}
		neg = false
	case math.IsInf(x, 0):
		body = []part{{"infinity", "∞"}}
	default:
		ox := o
		if o.Notation == "compact" {
			ax := math.Abs(x)
			units, ok := compactUnits[lang]
			if !ok {
				units = compactUnits["en"]
			}
			for _, c := range units {
				if ax >= math.Pow10(c.exp) {
					if c.unit != "" {
						x /= math.Pow10(c.exp)
						compactSuffix = c.unit
						if o.CompactDisplay == "long" && lang == "en" {
							compactSuffix = map[int]string{3: " thousand", 6: " million", 9: " billion", 12: " trillion"}[c.exp]
						}
					}
					break
				}
			}
			if o.MaxSig == 0 && o.MinFrac == 0 && o.MaxFrac == 0 && x != 0 {
				ip, _ := fixed(x, numOpts{MaxFrac: 0, MinInt: 1})
				if len(ip) < 2 {
					ox.MaxSig, ox.MinSig = 2, 1
				}
			}
			if compactSuffix == "" && math.Abs(x) >= 1000 {
				compactSuffix = ""
			}
		}
		exp10 := 0
		if o.Notation == "scientific" || o.Notation == "engineering" {
			if x != 0 {
				digits, e := decimalDigits(x)
				if o.MaxSig > 0 {
					digits, e = roundDigits(digits, e, o.MaxSig)
				} else {
					digits, e = roundDigits(digits, e, 1+o.MaxFrac)
				}
				exp10 = e - 1
				if o.Notation == "engineering" {
					exp10 -= ((exp10 % 3) + 3) % 3
				}
				x = math.Copysign(mustFloat("0."+digits+"e"+strconv.Itoa(e-exp10)), x)
			}
		}
		ip, fp := fixed(x, ox)
		if ip == "0" && strings.Trim(fp, "0") == "" && o.SignDisplay != "negative" {
			// -0 shows a sign only with signDisplay always/exceptZero rules below
		}
		for i, g := range group(ip, nl, o.UseGrouping) {
			if i > 0 {
				body = append(body, part{"group", nl.group})
			}
			body = append(body, part{"integer", g})
		}
		if fp != "" {
			body = append(body, part{"decimal", nl.decimal}, part{"fraction", fp})
		}
		if compactSuffix != "" {
			if _, ok := compactUnits[lang]; ok && lang != "en" && compactSuffix != "K" {
				body = append(body, part{"literal", "\u00a0"})
			}
			body = append(body, part{"compact", compactSuffix})
		}
		if o.Notation == "scientific" || o.Notation == "engineering" {
			body = append(body, part{"exponentSeparator", "E"})
			if exp10 < 0 {
				body = append(body, part{"exponentMinusSign", nl.minus})
			}
			body = append(body, part{"exponentInteger", strconv.Itoa(abs(exp10))})
		}
		if strings.Trim(ip+fp, "0") == "" {
			// rounded to zero: the sign follows the value's sign for auto
			if o.SignDisplay == "exceptZero" || o.SignDisplay == "negative" {
				neg = false
			}
		}
	}
	zero := x == 0
	sign := ""
	switch o.SignDisplay {
	case "auto", "":
		if neg {
			sign = nl.minus
		}
	case "always":
		if neg {
			sign = nl.minus
		} else {
			sign = "+"
		}
	case "exceptZero":
		if neg && !zero {
			sign = nl.minus
		} else if !zero && !math.IsNaN(x) {
			sign = "+"
		}
	case "negative":
		if neg && !zero {
			sign = nl.minus
		}
	}
	if sign != "" {
		t := "minusSign"
		if sign == "+" {
			t = "plusSign"
		}
		parts = append(parts, part{t, sign})
	}
	switch o.Style {
	case "percent":
		parts = append(parts, body...)
		if nl.percent != "%" {
			parts = append(parts, part{"literal", strings.TrimSuffix(nl.percent, "%")})
		}
		parts = append(parts, part{"percentSign", "%"})
	case "currency":
		if o.CurrencyDisplay == "name" {
			parts = append(parts, body...)
			num := ""
			for _, p := range body {
				num += p.val
			}
			parts = append(parts, part{"literal", " "}, part{"currency", currencyName(o.Currency, num == "1")})
			break
		}
		if o.CurrencySign == "accounting" && len(parts) > 0 && parts[0].typ == "minusSign" && !nl.currencyAfter {
			parts = []part{{"literal", "("}}
			accounting = true
		}
		sym := o.Currency
		switch o.CurrencyDisplay {
		case "symbol", "":
			sym = currencySymbol(o.Locale, o.Currency, false)
		case "narrowSymbol":
			sym = currencySymbol(o.Locale, o.Currency, true)
		}
		space := nl.currencySpace
		if o.CurrencyDisplay == "code" && space == "" {
			space = "\u00a0"
		}
		if nl.currencyAfter {
			parts = append(parts, body...)
			parts = append(parts, part{"literal", "\u00a0"}, part{"currency", sym})
		} else {
			parts = append(parts, part{"currency", sym})
			if space != "" {
				parts = append(parts, part{"literal", space})
			}
			parts = append(parts, body...)
		}
	case "unit":
		parts = append(parts, body...)
		label := unitLabel(o.Unit, o.UnitDisplay, x)
		if label != "%" && !(o.UnitDisplay == "narrow" && narrowUnit[o.Unit] != "") {
			parts = append(parts, part{"literal", " "})
		}
		parts = append(parts, part{"unit", label})
	default:
		parts = append(parts, body...)
	}
	if accounting {
		parts = append(parts, part{"literal", ")"})
	}
	return parts
}

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

// currencyName is en's name of a currency (ICU's long display).
func currencyName(code string, one bool) string {
	names := map[string][2]string{
		"USD": {"US dollar", "US dollars"}, "EUR": {"euro", "euros"}, "GBP": {"British pound", "British pounds"},
		"JPY": {"Japanese yen", "Japanese yen"}, "INR": {"Indian rupee", "Indian rupees"}, "CAD": {"Canadian dollar", "Canadian dollars"},
		"AUD": {"Australian dollar", "Australian dollars"}, "CNY": {"Chinese yuan", "Chinese yuan"}, "CHF": {"Swiss franc", "Swiss francs"},
		"BRL": {"Brazilian real", "Brazilian reals"}, "MXN": {"Mexican peso", "Mexican pesos"}, "KRW": {"South Korean won", "South Korean won"},
	}
	n, ok := names[code]
	if !ok {
		return code
	}
	if one {
		return n[0]
	}
	return n[1]
}

var narrowUnit = map[string]string{"day": "d", "hour": "h", "minute": "m", "second": "s", "millisecond": "ms", "week": "w", "year": "y", "percent": "%"}

// unitLabel is en's label of a unit (ICU's short, narrow and long forms;
// a compound "a-per-b" is a/b).
func unitLabel(unit, display string, x float64) string {
	if a, b, ok := strings.Cut(unit, "-per-"); ok {
		if unit == "mile-per-hour" && display != "long" {
			return "mph"
		}
		if display == "long" {
			return unitLabel(a, display, x) + " per " + unitLabel(b, display, 1)
		}
		return unitLabel(a, "short", x) + "/" + strings.TrimSuffix(unitLabel(b, "short", 1), "r")
	}
	if unit == "percent" {
		if display == "long" {
			return "percent"
		}
		return "%"
	}
	if display == "narrow" {
		if n, ok := narrowUnit[unit]; ok {
			return n
		}
	}
	short := map[string]string{
		"byte": "byte", "kilobyte": "kB", "megabyte": "MB", "gigabyte": "GB", "terabyte": "TB", "bit": "bit",
		"millisecond": "ms", "second": "sec", "minute": "min", "hour": "hr", "day": "day", "week": "wk", "month": "mth", "year": "yr",
		"meter": "m", "kilometer": "km", "centimeter": "cm", "millimeter": "mm", "mile": "mi", "foot": "ft", "inch": "in",
		"kilogram": "kg", "gram": "g", "pound": "lb", "liter": "L", "milliliter": "mL", "percent": "%", "celsius": "°C", "fahrenheit": "°F",
	}
	if display == "long" || (display != "narrow" && (unit == "day" || unit == "byte" || unit == "bit")) {
		l := unit
		if math.Abs(x) != 1 {
			l += "s"
		}
		return l
	}
	if s, ok := short[unit]; ok {
		if (unit == "week" || unit == "month" || unit == "year" || unit == "hour") && math.Abs(x) != 1 && display != "narrow" {
			return s + "s"
		}
		return s
	}
	return unit
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

var (
	collatorsMu sync.Mutex
	collators   = map[string]*collate.Collator{}
)

// collator returns a cached collator for the locale and options.
func collator(locale, sensitivity string, numeric, ignorePunctuation bool) *collate.Collator {
	key := locale + "|" + sensitivity + "|" + strconv.FormatBool(numeric) + strconv.FormatBool(ignorePunctuation)
	collatorsMu.Lock()
	defer collatorsMu.Unlock()
	if c, ok := collators[key]; ok {
		return c
	}
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
	c := collate.New(tag, opts...)
	collators[key] = c
	return c
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
		canon, name, err := displayName(c.Argument(0).String(), c.Argument(1).String(), c.Argument(2).String(), c.Argument(3).String())
		if err != nil {
			return nil, err
		}
		return rt.NewArray(canon, name), nil
	})
	dtfNatives(rt, n)
	dataNatives(rt, n)
}

var displayCurrencies = map[string]string{"USD": "US Dollar", "EUR": "Euro", "JPY": "Japanese Yen", "GBP": "British Pound", "INR": "Indian Rupee",
	"CAD": "Canadian Dollar", "AUD": "Australian Dollar", "CNY": "Chinese Yuan", "CHF": "Swiss Franc", "BRL": "Brazilian Real", "MXN": "Mexican Peso", "KRW": "South Korean Won"}

// displayName is Intl.DisplayNames.prototype.of for x/text's CLDR names;
// name is "" when the code is valid but has none.
func displayName(locale, typ, code, languageDisplay string) (canon, name string, err error) {
	invalid := jserr.RangeError("invalid_argument")
	tag, perr := language.Parse(locale)
	if perr != nil {
		tag = language.English
	}
	switch typ {
	case "region":
		r, err := language.ParseRegion(code)
		if err != nil {
			return "", "", invalid
		}
		return r.String(), display.Regions(tag).Name(r), nil
	case "script":
		sc, err := language.ParseScript(code)
		if err != nil {
			return "", "", invalid
		}
		if base, _ := tag.Base(); base.String() == "en" {
			switch sc.String() {
			case "Hans":
				return "Hans", "Simplified", nil
			case "Hant":
				return "Hant", "Traditional", nil
			}
		}
		return sc.String(), display.Scripts(tag).Name(sc), nil
	case "language":
		t, err := language.Parse(code)
		if err != nil {
			if c, ok := wellFormedTag(code); ok {
				return c, "", nil
			}
			return "", "", invalid
		}
		if languageDisplay == "standard" {
			base, _ := t.Base()
			n := display.Languages(tag).Name(base)
			if r, conf := t.Region(); conf == language.Exact {
				n += " (" + display.Regions(tag).Name(r) + ")"
			}
			return t.String(), n, nil
		}
		return t.String(), display.Tags(tag).Name(t), nil
	case "currency":
		if len(code) != 3 || !isASCIILetter(code[0]) || !isASCIILetter(code[1]) || !isASCIILetter(code[2]) {
			return "", "", invalid
		}
		u := strings.ToUpper(code)
		if base, _ := tag.Base(); base.String() != "en" {
			return u, "", nil
		}
		return u, displayCurrencies[u], nil
	}
	return "", "", invalid
}

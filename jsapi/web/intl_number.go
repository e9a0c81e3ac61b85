package web

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// NumberFormat on CLDR 48 data: the locale's numbering system, symbols,
// decimal/percent/currency/accounting/scientific/compact patterns,
// grouping sizes and minimum grouping digits, currency symbols, names and
// spacing, unit patterns; formatted as ICU's number formatter lays them
// out (sign in the affixes, the negative subpattern when there is one,
// alphaNextToNumber patterns for letter symbols).

type numLocale struct {
	d           cldr.Data
	tag         string
	ns          string
	digits      []rune
	sym         map[string]string
	minGrouping int
	patterns    lazyCache[string, *numPattern]
	seps        lazyCache[[2]string, *numLocale] // withSeparators
}

var numLocales lazyCache[string, *numLocale]

func getNumLocale(tag, nu string) *numLocale {
	return numLocales.get(tag+"|"+nu, func() *numLocale { return newNumLocale(tag, nu) })
}

func newNumLocale(tag, nu string) *numLocale {
	d := cldrData(tag)
	if nu == "" || d.Map("numbers", "symbols-numberSystem-"+nu) == nil && numberingDigits(nu) == nil && nu != "latn" {
		nu = d.Str("numbers", "defaultNumberingSystem")
	}
	l := &numLocale{d: d, tag: tag, ns: nu, digits: numberingDigits(nu)}
	l.sym = map[string]string{}
	for _, ns := range []string{"latn", nu} {
		for k, v := range d.Map("numbers", "symbols-numberSystem-"+ns) {
			if s, ok := v.(string); ok {
				l.sym[k] = s
			}
		}
	}
	l.minGrouping, _ = strconv.Atoi(d.Str("numbers", "minimumGroupingDigits"))
	if l.minGrouping < 1 {
		l.minGrouping = 1
	}
	return l
}

// fmtKey reads numbers/<kind>-numberSystem-<ns>/keys..., falling back to latn.
func (l *numLocale) fmtKey(kind string, keys ...string) any {
	for _, ns := range []string{l.ns, "latn"} {
		if v := l.d.At(append([]string{"numbers", kind + "-numberSystem-" + ns}, keys...)...); v != nil {
			return v
		}
	}
	return nil
}

func (l *numLocale) localDigits(s string) string {
	if l.digits == nil {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			sb.WriteRune(l.digits[r-'0'])
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// numPattern is a parsed CLDR number pattern.
type numPattern struct {
	pos, neg           []part // affix parts around the number ("number" marks it)
	hasNeg             bool
	primary, secondary int
	zeros              int // compact: integer zeros
}

// affixParts tokenizes an affix: ¤ currency, % percent, - minus, + plus.
func affixParts(s string) []part {
	var out []part
	lit := func(v string) {
		if v == "" {
			return
		}
		if len(out) > 0 && out[len(out)-1].typ == "literal" {
			out[len(out)-1].val += v
		} else {
			out = append(out, part{"literal", v})
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\'':
			j := i + 1
			var sb strings.Builder
			for j < len(rs) && rs[j] != '\'' {
				sb.WriteRune(rs[j])
				j++
			}
			if j == i+1 {
				lit("'")
			} else {
				lit(sb.String())
			}
			i = j
		case '¤':
			for i+1 < len(rs) && rs[i+1] == '¤' {
				i++
			}
			out = append(out, part{"currency", ""})
		case '%':
			out = append(out, part{"percentSign", ""})
		case '-':
			out = append(out, part{"minusSign", ""})
		case '+':
			out = append(out, part{"plusSign", ""})
		default:
			lit(string(r))
		}
	}
	return out
}

func isNumChar(r rune) bool {
	return r == '#' || r == '0' || r == ',' || r == '.' || r == '@' || r >= '1' && r <= '9' || r == 'E'
}

func splitSub(p string) (string, string, bool) {
	inQ := false
	for i, r := range p {
		if r == '\'' {
			inQ = !inQ
		}
		if r == ';' && !inQ {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}

func parseSub(p string) (pre, num, suf string) {
	rs := []rune(p)
	start, end := -1, -1
	inQ := false
	for i, r := range rs {
		if r == '\'' {
			inQ = !inQ
			continue
		}
		if !inQ && isNumChar(r) {
			if start < 0 {
				start = i
			}
			end = i + 1
		}
	}
	if start < 0 {
		return p, "", ""
	}
	return string(rs[:start]), string(rs[start:end]), string(rs[end:])
}

func parseNumPattern(p string) *numPattern {
	pos, neg, hasNeg := splitSub(p)
	np := &numPattern{hasNeg: hasNeg}
	pre, num, suf := parseSub(pos)
	np.pos = append(append(affixParts(pre), part{"number", ""}), affixParts(suf)...)
	if hasNeg {
		npre, _, nsuf := parseSub(neg)
		np.neg = append(append(affixParts(npre), part{"number", ""}), affixParts(nsuf)...)
	}
	intPart, _, _ := strings.Cut(num, ".")
	intPart, _, _ = strings.Cut(intPart, "E")
	np.zeros = strings.Count(intPart, "0")
	if i := strings.LastIndexByte(intPart, ','); i >= 0 {
		np.primary = len(intPart) - i - 1
		if j := strings.LastIndexByte(intPart[:i], ','); j >= 0 {
			np.secondary = i - j - 1
		} else {
			np.secondary = np.primary
		}
	}
	return np
}

func (l *numLocale) pattern(p string) *numPattern {
	return l.patterns.get(p, func() *numPattern { return parseNumPattern(p) })
}

// roundDigitsMode rounds digits (value 0.digits*10^exp) to keep n digits.
func roundDigitsMode(digits string, exp, n int, mode string, neg bool) (string, int) {
	if n >= len(digits) {
		return digits, exp
	}
	if n < 0 {
		// everything is dropped: the value is below half of the last place
		// kept, or rounds up to it
		if mode == "ceil" && !neg || mode == "floor" && neg || mode == "expand" {
			if digits != "" {
				return "1", exp - n + 1
			}
		}
		return "", exp
	}
	rest := digits[n:]
	first := rest[0]
	restNonZero := strings.TrimRight(rest, "0") != ""
	tailNonZero := strings.TrimRight(rest[1:], "0") != ""
	up := false
	switch mode {
	case "ceil":
		up = !neg && restNonZero
	case "floor":
		up = neg && restNonZero
	case "expand":
		up = restNonZero
	case "trunc":
		up = false
	case "halfCeil":
		up = first > '5' || first == '5' && (tailNonZero || !neg)
	case "halfFloor":
		up = first > '5' || first == '5' && (tailNonZero || neg)
	case "halfTrunc":
		up = first > '5' || first == '5' && tailNonZero
	case "halfEven":
		last := byte('0')
		if n > 0 {
			last = digits[n-1]
		}
		up = first > '5' || first == '5' && (tailNonZero || (last-'0')%2 == 1)
	default: // halfExpand
		up = first >= '5'
	}
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

// rounded rounds |x| (or the exact digits) per the options: integer and
// fraction digits as ASCII.
func rounded(x float64, o numOpts) (string, string) {
	digits, exp := decimalDigits(x)
	if o.Exact != "" {
		digits = strings.TrimLeft(o.Exact, "0")
		exp = len(digits)
		digits = strings.TrimRight(digits, "0")
	}
	neg := o.neg
	mode := o.RoundingMode
	useSig := o.MaxSig > 0
	if useSig && o.Priority != "" && o.Priority != "auto" && o.MaxFrac >= 0 {
		// roundingPriority: the result with more (morePrecision) or fewer
		// (lessPrecision) fraction digits
		d1, e1 := roundDigitsMode(digits, exp, o.MaxSig, mode, neg)
		d2, e2 := roundDigitsMode(digits, exp, exp+o.MaxFrac, mode, neg)
		f1, f2 := len(d1)-e1, len(d2)-e2
		if o.Priority == "morePrecision" && f2 > f1 || o.Priority == "lessPrecision" && f2 < f1 {
			useSig = false
		}
	}
	if useSig {
		digits, exp = roundDigitsMode(digits, exp, o.MaxSig, mode, neg)
	} else {
		digits, exp = roundDigitsMode(digits, exp, exp+o.MaxFrac, mode, neg)
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
	if useSig {
		minFrac = 0
		if o.MinSig > 0 {
			sig := len(strings.TrimLeft(ip, "0")) + len(fp)
			if strings.TrimLeft(ip, "0") == "" {
				sig = len(strings.TrimLeft(fp, "0"))
				if digits == "" {
					sig = 1 + len(fp)
				}
			}
			if sig < o.MinSig {
				minFrac = len(fp) + o.MinSig - sig
			}
		}
	}
	if o.TrailingZero == "stripIfInteger" && strings.Trim(fp, "0") == "" {
		fp, minFrac = "", 0
	}
	for len(fp) < minFrac {
		fp += "0"
	}
	for len(ip) < o.MinInt {
		ip = "0" + ip
	}
	return ip, fp
}

// groupDigits splits integer digits by the pattern's grouping sizes.
func (l *numLocale) groupDigits(ip string, np *numPattern, useGrouping string) []string {
	if useGrouping == "false" || np.primary == 0 {
		return []string{ip}
	}
	min := l.minGrouping
	switch useGrouping {
	case "min2":
		min = 2
	case "always":
		min = 1
	}
	if len(ip) < np.primary+min {
		return []string{ip}
	}
	var groups []string
	s := ip
	size := np.primary
	for len(s) > size {
		groups = append([]string{s[len(s)-size:]}, groups...)
		s = s[:len(s)-size]
		size = np.secondary
	}
	return append([]string{s}, groups...)
}

// numberBody is the digits of |x| as parts (integer, group, decimal, fraction).
func (l *numLocale) numberBody(ip, fp string, np *numPattern, useGrouping string) []part {
	var body []part
	for i, g := range l.groupDigits(ip, np, useGrouping) {
		if i > 0 {
			body = append(body, part{"group", l.sym["group"]})
		}
		body = append(body, part{"integer", l.localDigits(g)})
	}
	if fp != "" {
		body = append(body, part{"decimal", l.sym["decimal"]}, part{"fraction", l.localDigits(fp)})
	}
	return body
}

func currencyDigitsData(code string) int {
	f := cldr.Supplemental().Map("currencyData", code)
	if f == nil {
		f = cldr.Supplemental().Map("currencyData", "DEFAULT")
	}
	s, _ := f["_digits"].(string)
	n, err := strconv.Atoi(s)
	if err != nil {
		return 2
	}
	return n
}

// currencyText is the currency as currencyDisplay shows it.
func (l *numLocale) currencyText(code, display string) string {
	switch display {
	case "code":
		return code
	case "narrowSymbol":
		if s := l.d.Str("currencies", code, "symbol-alt-narrow"); s != "" {
			return s
		}
	}
	if s := l.d.Str("currencies", code, "symbol"); s != "" {
		return s
	}
	return code
}

// currencyFormat is the currency-specific format ICU formats a currency
// with, whatever the width (ok false for none): CLDR gives a few
// currencies a pattern or separators of their own in a locale (tr TRY
// "¤#,##0.00"; en-150 EUR with "." and ","; pt-CV CVE's "$" decimal).
// ICU's DecimalFormatSymbols loads the format of the currency of the
// tag's region (ucurr_forLocale: an explicit region only) and then of the
// formatter's currency, and keeps the first when the second has none, so
// tr-TR formats every currency with TRY's pattern and plain tr only TRY;
// NumberFormatterImpl then takes that pattern over the style's (symbol,
// code, name and accounting alike) and its separators. A missing part is
// the locale's own (ICU's data fills it so). Not reproduced: with such a
// pattern, a symbol ending in a letter and the long name, ICU puts the
// name one character before the end of the number once currency spacing
// added its NBSP (workerd: tr-TR AED name 1234.5 "AED 1.234,5 BAE
// dirhemi0"), an ICU bug outside the probe.
func (l *numLocale) currencyFormat(tag, code string) (pattern, dec, grp string, ok bool) {
	var def cldr.Data // the locale whose data gave the entry
	entry := func(c string) bool {
		m := l.d.Map("currencies", c)
		pattern, _ = m["pattern"].(string)
		dec, _ = m["decimal"].(string)
		grp, _ = m["group"].(string)
		if pattern == "" && dec == "" && grp == "" {
			return false
		}
		// ICU's data completes an entry where CLDR gives it (en-150 EUR
		// with en-150's "." and ","), and a child inherits it whole (en-DE,
		// whose own separators are "," and "."): the topmost ancestor
		// with the same entry
		id := cldr.DataLocale(tag)
		def = cldr.Locale(id)
		for p := cldr.Parent(id); p != "" && p != "und"; p = cldr.Parent(p) {
			pd := cldr.Locale(p)
			pm := pd.Map("currencies", c)
			if pm["pattern"] != m["pattern"] || pm["decimal"] != m["decimal"] || pm["group"] != m["group"] {
				break
			}
			def = pd
		}
		return true
	}
	ok = entry(code)
	if !ok {
		if r := cldr.ParseTag(tag).Region; r != "" {
			if c := cldr.Supplemental().Str("regionCurrency", r); c != "" {
				ok = entry(c)
			}
		}
	}
	if !ok {
		return "", "", "", false
	}
	symbol := func(k string) string {
		if v := def.Str("numbers", "symbols-numberSystem-"+l.ns, k); v != "" {
			return v
		}
		return l.sym[k]
	}
	if pattern == "" {
		pattern, _ = l.fmtKey("currencyFormats", "standard").(string)
	}
	if dec == "" {
		dec = symbol("decimal")
	}
	if grp == "" {
		grp = symbol("group")
	}
	return pattern, dec, grp, true
}

// withSeparators is l with other decimal and group symbols (a currency's
// own, see currencyFormat), kept per pair.
func (l *numLocale) withSeparators(dec, grp string) *numLocale {
	if dec == l.sym["decimal"] && grp == l.sym["group"] {
		return l
	}
	return l.seps.get([2]string{dec, grp}, func() *numLocale {
		c := &numLocale{d: l.d, tag: l.tag, ns: l.ns, digits: l.digits, minGrouping: l.minGrouping, sym: map[string]string{}}
		for k, v := range l.sym {
			c.sym[k] = v
		}
		c.sym["decimal"], c.sym["group"] = dec, grp
		return c
	})
}

// unitPattern is the pattern of a unit at a width and plural category.
func (l *numLocale) unitPattern(unit, width, cat string) string {
	m := l.d.Map("units", width)
	var u map[string]any
	for k, v := range m {
		if _, name, ok := strings.Cut(k, "-"); ok && name == unit {
			u, _ = v.(map[string]any)
			break
		}
	}
	if u == nil {
		return ""
	}
	if s, ok := u["unitPattern-count-"+cat].(string); ok {
		return s
	}
	s, _ := u["unitPattern-count-other"].(string)
	return s
}

func (l *numLocale) perUnitPattern(unit, width string) string {
	for k, v := range l.d.Map("units", width) {
		if _, name, ok := strings.Cut(k, "-"); ok && name == unit {
			m, _ := v.(map[string]any)
			s, _ := m["perUnitPattern"].(string)
			return s
		}
	}
	return ""
}

// splitPattern splits a "{0}"-pattern into the text before and after.
func splitPattern(p string) (string, string) {
	a, b, _ := strings.Cut(p, "{0}")
	return a, b
}

// labelParts writes a unit or compact label: its edge spaces as literals.
func labelParts(s, typ string) []part {
	if s == "" {
		return nil
	}
	t := strings.TrimFunc(s, unicode.IsSpace)
	if t == "" {
		return []part{{"literal", s}}
	}
	i := strings.Index(s, t)
	var out []part
	if i > 0 {
		out = append(out, part{"literal", s[:i]})
	}
	out = append(out, part{typ, t})
	if rest := s[i+len(t):]; rest != "" {
		out = append(out, part{"literal", rest})
	}
	return out
}

// compactPattern picks the compact pattern for magnitude mag (0 when none).
func (l *numLocale) compactPatterns(style, display string) map[string]any {
	if style == "currency" {
		m, _ := l.fmtKey("currencyFormats", "short", "standard").(map[string]any)
		return m
	}
	w := "short"
	if display == "long" {
		w = "long"
	}
	m, _ := l.fmtKey("decimalFormats", w, "decimalFormat").(map[string]any)
	return m
}

// compactFor picks the compact pattern for magnitude mag and the
// exponent of its key (-1 when none).
func compactFor(m map[string]any, mag int, cat string) (string, int) {
	best := -1
	for k := range m {
		num, _, _ := strings.Cut(k, "-")
		e := len(num) - 1
		if e <= mag && e > best && strings.HasPrefix(num, "1") {
			best = e
		}
	}
	if best < 0 {
		return "", -1
	}
	key := "1" + strings.Repeat("0", best)
	if s, ok := m[key+"-count-"+cat].(string); ok {
		return s, best
	}
	if cat == "1" {
		return "", best
	}
	s, _ := m[key+"-count-other"].(string)
	return s, best
}

// formatNumber formats x as Intl.NumberFormat does with o.
func formatNumber(x float64, o numOpts) []part {
	l := getNumLocale(o.Locale, o.NU)
	neg := x < 0 || x == 0 && math.Signbit(x)
	o.neg = neg
	if o.Style == "percent" && !math.IsNaN(x) && !math.IsInf(x, 0) {
		x *= 100
	}
	ax := math.Abs(x)
	var np *numPattern
	curPattern := func(kind string) string {
		p, _ := l.fmtKey("currencyFormats", kind).(string)
		return p
	}
	sym := ""
	if o.Style == "currency" {
		sym = l.currencyText(o.Currency, o.CurrencyDisplay)
	}
	sticky := ""
	if o.Style == "currency" {
		if p, dec, grp, ok := l.currencyFormat(o.Locale, o.Currency); ok {
			sticky = p
			l = l.withSeparators(dec, grp)
		}
	}
	switch o.Style {
	case "percent":
		p, _ := l.fmtKey("percentFormats", "standard").(string)
		np = l.pattern(p)
	case "currency":
		if sticky != "" {
			np = l.pattern(sticky)
			break
		}
		if o.CurrencyDisplay == "name" {
			// ICU formats a currency's long name with the decimal pattern
			// (number_formatimpl: unit-width-full-name takes the decimal
			// style; the currency patterns' direction marks of he and fa
			// are not written), the name from the unit pattern after it
			p, _ := l.fmtKey("decimalFormats", "standard").(string)
			np = l.pattern(p)
			break
		}
		kind := "standard"
		if o.CurrencySign == "accounting" {
			kind = "accounting"
		}
		p := curPattern(kind)
		base := l.pattern(p)
		// a symbol ending (or starting) with a letter next to the number
		// takes the alphaNextToNumber pattern
		alt, _ := l.d.At("numbers", "currencyFormats-numberSystem-"+l.ns, kind+"-alphaNextToNumber").(string)
		if alt != "" && sym != "" && !math.IsNaN(x) && !math.IsInf(x, 0) {
			rs := []rune(sym)
			edge := rs[len(rs)-1]
			if len(base.pos) > 0 && base.pos[len(base.pos)-1].typ == "currency" {
				edge = rs[0]
			}
			if unicode.IsLetter(edge) {
				p = alt
			}
		}
		np = l.pattern(p)
	default:
		p, _ := l.fmtKey("decimalFormats", "standard").(string)
		np = l.pattern(p)
	}
	var body []part
	var compactAffix string
	exp10 := 0
	roundedZero := false
	switch {
	case math.IsNaN(x):
		body = []part{{"nan", l.sym["nan"]}}
	case math.IsInf(x, 0):
		body = []part{{"infinity", l.sym["infinity"]}}
	default:
		ro := o
		switch o.Notation {
		case "scientific", "engineering":
			if ax != 0 {
				digits, e := decimalDigits(ax)
				exp10 = e - 1
				if o.Notation == "engineering" {
					exp10 -= ((exp10 % 3) + 3) % 3
				}
				ax = mustFloat("0." + digits + "e" + strconv.Itoa(e-exp10))
				ip, fp := rounded(ax, ro)
				if o.Notation == "scientific" && len(ip) > 1 || o.Notation == "engineering" && len(ip) > 3 {
					// rounding carried into a new digit
					exp10 += map[bool]int{true: 1, false: 3}[o.Notation == "scientific"]
					ax = mustFloat("0." + digits + "e" + strconv.Itoa(e-exp10))
				}
				_, _ = ip, fp
			}
		case "compact":
			pats := l.compactPatterns(o.Style, o.CompactDisplay)
			compactRound := func(v float64) numOpts {
				r := ro
				if o.MaxSig == 0 && o.MinFrac == 0 && o.MaxFrac == 0 && o.Priority == "" {
					ip, _ := rounded(v, numOpts{MaxFrac: 0, MinInt: 1, RoundingMode: o.RoundingMode})
					if len(strings.TrimLeft(ip, "0")) < 2 {
						r.MaxSig, r.MinSig = 2, 1
					}
				}
				return r
			}
			mag := 0
			if ax != 0 {
				_, e := decimalDigits(ax)
				mag = e - 1
			}
			for tries := 0; tries < 2; tries++ {
				pat, keyExp := compactFor(pats, mag, "other")
				mult := 0
				if pat != "" && pat != "0" {
					_, num, _ := parseSub(pat)
					mult = keyExp - (strings.Count(num, "0") - 1)
				}
				v := ax / math.Pow10(mult)
				r := compactRound(v)
				ip, fp := rounded(v, r)
				// rounding up into the next magnitude takes its pattern
				if tries == 0 && ax != 0 {
					if nd := len(strings.TrimLeft(ip, "0")); nd > 0 && nd-1+mult > mag {
						mag = nd - 1 + mult
						continue
					}
				}
				ro = r
				ax = v
				if pat != "" && pat != "0" {
					cat := pluralSelect(o.Locale, false, ip, fp)
					pat, _ = compactFor(pats, mag, cat)
					if ip == "1" && fp == "" {
						if p1, _ := compactFor(pats, mag, "1"); p1 != "" {
							pat = p1 // CLDR's explicit "1" form (fr "mille")
						}
					}
					if !strings.Contains(pat, "0") {
						compactAffix = "\x01" + pat
					} else {
						pre, _, suf := parseSub(pat)
						compactAffix = pre + "\x00" + suf
					}
				}
				break
			}
		}
		ip, fp := rounded(ax, ro)
		if strings.Trim(ip+fp, "0") == "" {
			roundedZero = true
		}
		body = l.numberBody(ip, fp, np, o.UseGrouping)
		if o.Style == "currency" {
			for i := range body {
				if g := l.sym["currencyGroup"]; body[i].typ == "group" && g != "" {
					body[i].val = g
				}
				if d := l.sym["currencyDecimal"]; body[i].typ == "decimal" && d != "" {
					body[i].val = d
				}
			}
		}
		if lit, ok := strings.CutPrefix(compactAffix, "\x01"); ok {
			body = []part{{"compact", lit}}
		} else if compactAffix != "" {
			pre, suf, _ := strings.Cut(compactAffix, "\x00")
			var cb []part
			for _, p := range affixParts(pre) {
				if p.typ == "literal" {
					cb = append(cb, labelParts(p.val, "compact")...)
				} else {
					cb = append(cb, p)
				}
			}
			cb = append(cb, body...)
			for _, p := range affixParts(suf) {
				if p.typ == "literal" {
					cb = append(cb, labelParts(p.val, "compact")...)
				} else {
					cb = append(cb, p)
				}
			}
			body = cb
		}
		if o.Notation == "scientific" || o.Notation == "engineering" {
			body = append(body, part{"exponentSeparator", l.sym["exponential"]})
			if exp10 < 0 {
				body = append(body, part{"exponentMinusSign", l.sym["minusSign"]})
			}
			body = append(body, part{"exponentInteger", l.localDigits(strconv.Itoa(abs(exp10)))})
		}
	}
	// the sign
	sign := ""
	isZero := roundedZero || x == 0
	switch o.SignDisplay {
	case "always":
		sign = "+"
		if neg {
			sign = "-"
		}
	case "exceptZero":
		switch {
		case math.IsNaN(x) || isZero:
		case neg:
			sign = "-"
		default:
			sign = "+"
		}
	case "negative":
		if neg && !isZero {
			sign = "-"
		}
	case "never":
	default:
		if neg {
			sign = "-"
		}
	}
	if math.IsNaN(x) && o.SignDisplay != "always" {
		sign = ""
	}
	affix := np.pos
	if sign == "-" && np.hasNeg {
		affix = np.neg
	} else if sign == "+" && np.hasNeg {
		affix = make([]part, len(np.neg))
		copy(affix, np.neg)
		for i := range affix {
			if affix[i].typ == "minusSign" {
				affix[i].typ = "plusSign"
			}
		}
	} else if sign != "" {
		t := "minusSign"
		if sign == "+" {
			t = "plusSign"
		}
		affix = append([]part{{t, ""}}, np.pos...)
	}
	var out []part
	for i, p := range affix {
		switch p.typ {
		case "number":
			out = append(out, body...)
		case "minusSign", "plusSign":
			out = append(out, signParts(p.typ, l.sym[p.typ])...)
		case "percentSign":
			out = append(out, part{"percentSign", l.sym["percentSign"]})
		case "currency":
			out = append(out, part{"currency", sym})
			// currency spacing: a non-symbol next to a digit gets insertBetween
			rs := []rune(sym)
			if len(rs) > 0 {
				if i+1 < len(affix) && affix[i+1].typ == "number" && !unicode.IsSymbol(rs[len(rs)-1]) && !unicode.IsSpace(rs[len(rs)-1]) && startsWithDigit(body) {
					out = append(out, part{"literal", l.spacing("afterCurrency")})
				}
				if i > 0 && affix[i-1].typ == "number" && !unicode.IsSymbol(rs[0]) && !unicode.IsSpace(rs[0]) && endsWithDigit(body) {
					last := out[len(out)-1]
					out = append(out[:len(out)-1], part{"literal", l.spacing("beforeCurrency")}, last)
				}
			}
		default:
			out = append(out, p)
		}
	}
	switch o.Style {
	case "currency":
		if o.CurrencyDisplay == "name" {
			ip, fp := "", ""
			for _, p := range body {
				if p.typ == "integer" {
					ip += p.val
				}
				if p.typ == "fraction" {
					fp += p.val
				}
			}
			cat := pluralSelect(o.Locale, false, asciiDigits(ip), asciiDigits(fp))
			name := l.d.Str("currencies", o.Currency, "displayName-count-"+cat)
			if name == "" {
				name = l.d.Str("currencies", o.Currency, "displayName-count-other")
			}
			if name == "" {
				name = l.d.Str("currencies", o.Currency, "displayName")
			}
			if name == "" {
				name = o.Currency
			}
			up, _ := l.fmtKey("currencyFormats", "unitPattern-count-"+cat).(string)
			if up == "" {
				up, _ = l.fmtKey("currencyFormats", "unitPattern-count-other").(string)
			}
			out = applyUnitPattern(up, out, part{"currency", name})
		}
	case "unit":
		ip, fp := "", ""
		for _, p := range body {
			if p.typ == "integer" {
				ip += p.val
			}
			if p.typ == "fraction" {
				fp += p.val
			}
		}
		cat := pluralSelect(o.Locale, false, asciiDigits(ip), asciiDigits(fp))
		width := o.UnitDisplay
		if width == "" {
			width = "short"
		}
		if up := l.unitPattern(o.Unit, width, cat); up != "" && !strings.Contains(up, "{0}") {
			out = labelParts(up, "unit")
		} else if up != "" {
			pre, suf := splitPattern(up)
			out = append(append(labelParts(pre, "unit"), out...), labelParts(suf, "unit")...)
		} else if a, b, ok := strings.Cut(o.Unit, "-per-"); ok {
			num := l.unitPattern(a, width, cat)
			if num == "" {
				num = "{0} " + a
			}
			if per := l.perUnitPattern(b, width); per != "" {
				num = strings.Replace(per, "{0}", num, 1)
			} else {
				den := l.unitPattern(b, width, "one")
				den = strings.TrimSpace(strings.Replace(den, "{0}", "", 1))
				cp, _ := l.d.Map("units", width, "per")["compoundUnitPattern"].(string)
				if cp == "" {
					cp = "{0}/{1}"
				}
				num = strings.Replace(strings.Replace(cp, "{0}", num, 1), "{1}", den, 1)
			}
			pre, suf := splitPattern(num)
			out = append(append(labelParts(pre, "unit"), out...), labelParts(suf, "unit")...)
		}
	}
	return mergeLiterals(out)
}

// mergeLiterals joins adjacent literal parts: V8 reports the text
// between two of ICU's fields as one literal (he: the pattern's U+200F
// and the minus sign's U+200E are one part).
func mergeLiterals(ps []part) []part {
	out := ps[:0:0]
	for _, p := range ps {
		if p.typ == "literal" && len(out) > 0 && out[len(out)-1].typ == "literal" {
			out[len(out)-1].val += p.val
			continue
		}
		out = append(out, p)
	}
	return out
}

func (l *numLocale) spacing(which string) string {
	s, _ := l.fmtKey("currencyFormats", "currencySpacing", which, "insertBetween").(string)
	if s == "" {
		s = "\u00a0"
	}
	return s
}

func startsWithDigit(body []part) bool {
	return len(body) > 0 && (body[0].typ == "integer")
}

func endsWithDigit(body []part) bool {
	if len(body) == 0 {
		return false
	}
	t := body[len(body)-1].typ
	return t == "integer" || t == "fraction" || t == "exponentInteger"
}

// asciiDigits maps any Unicode decimal digits to ASCII.
func asciiDigits(s string) string {
	var sb strings.Builder
	for _, r := range s {
		if unicode.IsDigit(r) {
			for z := r; ; z-- {
				if !unicode.IsDigit(z - 1) {
					sb.WriteByte(byte('0' + r - z))
					break
				}
			}
		} else {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// applyUnitPattern places the number parts at {0} and label at {1}.
func applyUnitPattern(up string, num []part, label part) []part {
	var out []part
	for len(up) > 0 {
		i0 := strings.Index(up, "{0}")
		i1 := strings.Index(up, "{1}")
		next, which := -1, 0
		if i0 >= 0 && (i1 < 0 || i0 < i1) {
			next, which = i0, 0
		} else if i1 >= 0 {
			next, which = i1, 1
		}
		if next < 0 {
			out = append(out, part{"literal", up})
			break
		}
		if next > 0 {
			out = append(out, part{"literal", up[:next]})
		}
		if which == 0 {
			out = append(out, num...)
		} else {
			out = append(out, label)
		}
		up = up[next+3:]
	}
	return out
}

// numberingSystemOf is the numbering system a NumberFormat resolves to.
func numberingSystemOf(tag, nu string) string {
	return getNumLocale(tag, nu).ns
}

var _ = sort.Strings

// numberRange is ICU's number range formatting of two formatted numbers
// (flat [type, value, ...]): the approximately sign when they are equal,
// shared affixes collapsed when longer than one code point (ICU's "auto"
// heuristic), spaces around the range separator when an affix repeats.
func numberRange(a, b []part, tag, nu string) []rpart {
	l := getNumLocale(tag, nu)
	join := func(ps []part) string {
		var sb strings.Builder
		for _, p := range ps {
			sb.WriteString(p.val)
		}
		return sb.String()
	}
	if join(a) == join(b) {
		approx := l.sym["approximatelySign"]
		var out []rpart
		done := false
		for _, p := range a {
			if !done && (p.typ == "integer" || p.typ == "nan" || p.typ == "infinity" || p.typ == "minusSign" || p.typ == "plusSign") {
				if p.typ == "minusSign" || p.typ == "plusSign" {
					out = append(out, rpart{p.typ, p.val, "shared"}, rpart{"approximatelySign", approx, "shared"})
					done = true
					continue
				}
				out = append(out, rpart{"approximatelySign", approx, "shared"})
				done = true
			}
			out = append(out, rpart{p.typ, p.val, "shared"})
		}
		return out
	}
	core := func(t string) bool {
		switch t {
		case "integer", "group", "decimal", "fraction", "exponentSeparator", "exponentMinusSign", "exponentInteger", "nan", "infinity", "minusSign", "plusSign":
			return true
		}
		return false
	}
	split := func(ps []part) (pre, mid, suf []part) {
		i, j := 0, len(ps)
		for i < len(ps) && !core(ps[i].typ) {
			i++
		}
		for j > i && !core(ps[j-1].typ) {
			j--
		}
		return ps[:i], ps[i:j], ps[j:]
	}
	pa, ma, sa := split(a)
	pb, mb, sb := split(b)
	rng, _ := l.fmtKey("miscPatterns", "range").(string)
	if rng == "" {
		rng = "{0}–{1}"
	}
	i0, i1 := strings.Index(rng, "{0}"), strings.Index(rng, "{1}")
	sep := rng[i0+3 : i1]
	affix := join(pa) + join(sa)
	collapse := join(pa) == join(pb) && join(sa) == join(sb) && len([]rune(affix)) > 1
	repeat := !collapse && (affix != "" || len(ma) > 0 && (ma[0].typ == "minusSign" || ma[0].typ == "plusSign"))
	if repeat {
		if rs := []rune(sep); len(rs) > 0 && !unicode.IsSpace(rs[0]) {
			sep = " " + sep
		}
		if rs := []rune(sep); len(rs) > 0 && !unicode.IsSpace(rs[len(rs)-1]) {
			sep += " "
		}
	}
	tag2 := func(ps []part, src string) []rpart {
		out := make([]rpart, len(ps))
		for i, p := range ps {
			out[i] = rpart{p.typ, p.val, src}
		}
		return out
	}
	var out []rpart
	if collapse {
		out = append(out, tag2(pa, "shared")...)
		out = append(out, tag2(ma, "startRange")...)
		out = append(out, rpart{"literal", sep, "shared"})
		out = append(out, tag2(mb, "endRange")...)
		out = append(out, tag2(sa, "shared")...)
		return out
	}
	out = append(out, tag2(a, "startRange")...)
	out = append(out, rpart{"literal", sep, "shared"})
	out = append(out, tag2(b, "endRange")...)
	return out
}

// signParts splits a sign symbol's bidi marks (ar's U+061C) into literals
// as ICU's field positions do.
func signParts(typ, sym string) []part {
	var out []part
	var lit, sign strings.Builder
	for _, r := range sym {
		if unicode.Is(unicode.Cf, r) && sign.Len() == 0 {
			lit.WriteRune(r)
		} else {
			sign.WriteRune(r)
		}
	}
	if lit.Len() > 0 {
		out = append(out, part{"literal", lit.String()})
	}
	return append(out, part{typ, sign.String()})
}

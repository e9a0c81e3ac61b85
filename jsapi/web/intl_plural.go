package web

import (
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// CLDR 48 plural rules (UTS #35 part 3 "Language Plural Rules"),
// evaluated here: golang.org/x/text/feature/plural carries CLDR 32's
// rules, which lack e.g. the "many" of fr, es, it and pt for millions
// that workerd's ICU 78 has. Pinned by TestPluralRules and the probe.

// pluralOperands are a number's operands n, i, v, w, f, t and e.
type pluralOperands struct {
	n          float64
	i, f, t, e int64
	v, w       int
}

func operandsOf(ip, fp string) pluralOperands {
	var o pluralOperands
	// n is the whole value (ro: 1e21 is "other", "de litri", not "few"
	// as n = 0 would make it); i keeps ICU's low 18 digits
	o.n, _ = strconv.ParseFloat(ip+"."+fp+"0", 64)
	if len(ip) > 18 {
		ip = ip[len(ip)-18:]
	}
	o.i, _ = strconv.ParseInt(ip, 10, 64)
	o.v = len(fp)
	tf := strings.TrimRight(fp, "0")
	o.w = len(tf)
	if fp != "" {
		o.f, _ = strconv.ParseInt(fp, 10, 64)
	}
	if tf != "" {
		o.t, _ = strconv.ParseInt(tf, 10, 64)
	}
	return o
}

type pluralRule struct {
	cat string
	ors [][]pluralRelation
}

type pluralRelation struct {
	operand byte
	mod     int64
	neg     bool
	ranges  [][2]float64
}

func (r pluralRelation) holds(o pluralOperands) bool {
	var x float64
	switch r.operand {
	case 'n':
		x = o.n
	case 'i':
		x = float64(o.i)
	case 'v':
		x = float64(o.v)
	case 'w':
		x = float64(o.w)
	case 'f':
		x = float64(o.f)
	case 't':
		x = float64(o.t)
	case 'c', 'e':
		x = float64(o.e)
	}
	if r.mod > 0 {
		x = math.Mod(x, float64(r.mod))
	}
	in := false
	for _, rg := range r.ranges {
		if x >= rg[0] && x <= rg[1] && (x == math.Trunc(x) || rg[0] == rg[1] && x == rg[0]) {
			in = true
			break
		}
	}
	return in != r.neg
}

func parsePluralRule(cat, src string) pluralRule {
	if i := strings.IndexByte(src, '@'); i >= 0 {
		src = src[:i]
	}
	r := pluralRule{cat: cat}
	src = strings.TrimSpace(src)
	if src == "" {
		return r
	}
	for _, or := range strings.Split(src, " or ") {
		var and []pluralRelation
		for _, rel := range strings.Split(or, " and ") {
			rel = strings.TrimSpace(rel)
			var p pluralRelation
			lhs, rhs, ok := strings.Cut(rel, "!=")
			if ok {
				p.neg = true
			} else {
				lhs, rhs, _ = strings.Cut(rel, "=")
			}
			lhs = strings.TrimSpace(lhs)
			p.operand = lhs[0]
			if _, m, ok := strings.Cut(lhs, "%"); ok {
				p.mod, _ = strconv.ParseInt(strings.TrimSpace(m), 10, 64)
			}
			for _, item := range strings.Split(rhs, ",") {
				item = strings.TrimSpace(item)
				a, b, isRange := strings.Cut(item, "..")
				lo, _ := strconv.ParseFloat(a, 64)
				hi := lo
				if isRange {
					hi, _ = strconv.ParseFloat(b, 64)
				}
				p.ranges = append(p.ranges, [2]float64{lo, hi})
			}
			and = append(and, p)
		}
		r.ors = append(r.ors, and)
	}
	return r
}

var (
	pluralRulesMu sync.Mutex
	pluralRules   = map[string][]pluralRule{}
)

// rulesFor returns a language's cardinal or ordinal rules in CLDR order
// (zero, one, two, few, many; "other" last).
func rulesFor(tag string, ordinal bool) []pluralRule {
	t := cldr.ParseTag(tag)
	key := t.Lang
	if t.Lang == "pt" && t.Region == "PT" {
		key = "pt-PT"
	}
	kind := "plurals"
	if ordinal {
		kind = "ordinals"
	}
	pluralRulesMu.Lock()
	defer pluralRulesMu.Unlock()
	if r, ok := pluralRules[kind+key]; ok {
		return r
	}
	m := cldr.Supplemental().Map(kind, key)
	if m == nil {
		m = cldr.Supplemental().Map(kind, "root")
	}
	var rules []pluralRule
	for _, cat := range []string{"zero", "one", "two", "few", "many"} {
		if s, ok := m["pluralRule-count-"+cat].(string); ok {
			rules = append(rules, parsePluralRule(cat, s))
		}
	}
	pluralRules[kind+key] = rules
	return rules
}

// pluralCategories lists a locale's categories in CLDR order.
func pluralCategories(tag string, ordinal bool) []string {
	var out []string
	for _, r := range rulesFor(tag, ordinal) {
		out = append(out, r.cat)
	}
	return append(out, "other")
}

// pluralSelect is the category of the number written ip.fp.
func pluralSelect(tag string, ordinal bool, ip, fp string) string {
	if ip == "" {
		return "other"
	}
	for _, r := range ip + fp {
		if r < '0' || r > '9' {
			return "other" // NaN, ∞
		}
	}
	o := operandsOf(ip, fp)
	for _, r := range rulesFor(tag, ordinal) {
		for _, and := range r.ors {
			ok := true
			for _, rel := range and {
				if !rel.holds(o) {
					ok = false
					break
				}
			}
			if ok {
				return r.cat
			}
		}
	}
	return "other"
}

// pluralCategory selects the CLDR plural category of n in locale, n
// rounded to the fraction digits.
func pluralCategory(locale string, ordinal bool, n float64, minFrac, maxFrac int) string {
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return "other"
	}
	ip, fp := rounded(math.Abs(n), numOpts{MinFrac: minFrac, MaxFrac: maxFrac, MinInt: 1})
	return pluralSelect(locale, ordinal, ip, fp)
}

// pluralRange is CLDR's pluralRanges category for a start and an end
// category.
func pluralRange(tag, start, end string) string {
	t := cldr.ParseTag(tag)
	m := cldr.Supplemental().Map("pluralRanges", t.Lang)
	if s, ok := m["pluralRange-start-"+start+"-end-"+end].(string); ok {
		return s
	}
	return end
}

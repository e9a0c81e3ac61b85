package web

import (
	"sort"
	"strings"

	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// A date-time pattern generator over CLDR data, as ICU's
// DateTimePatternGenerator (dtptngen.cpp) finds the pattern for a
// skeleton: the same field types and distances, the same order of
// candidates (canonical items, the locale's standard date and time
// formats, then availableFormats), date and time halves joined with the
// dateTimeFormat the month width selects, missing fields appended with
// appendItems, field widths adjusted. Hand-written because no Go library
// implements UTS #35's skeleton matching; pinned by the workerd probe.

const (
	fEra = iota
	fYear
	fQuarter
	fMonth
	fWeekOfYear
	fWeekOfMonth
	fWeekday
	fDayOfYear
	fDayOfWeekInMonth
	fDay
	fDayPeriod
	fHour
	fMinute
	fSecond
	fFraction
	fZone
	fieldCount
)

const (
	dtNumeric = 0x100
	dtNarrow  = -0x101
	dtShorter = -0x102
	dtShort   = -0x103
	dtLong    = -0x104
	dtDelta   = 0x10
)

type dtType struct {
	ch     byte
	field  int
	typ    int
	minLen int
}

// dtTypes is ICU's dtTypes table.
var dtTypes = []dtType{
	{'G', fEra, dtShort, 1}, {'G', fEra, dtLong, 4}, {'G', fEra, dtNarrow, 5},
	{'y', fYear, dtNumeric, 1}, {'Y', fYear, dtNumeric + dtDelta, 1}, {'u', fYear, dtNumeric + 2*dtDelta, 1},
	{'r', fYear, dtNumeric + 3*dtDelta, 1}, {'U', fYear, dtShort, 1}, {'U', fYear, dtLong, 4}, {'U', fYear, dtNarrow, 5},
	{'Q', fQuarter, dtNumeric, 1}, {'Q', fQuarter, dtShort, 3}, {'Q', fQuarter, dtLong, 4}, {'Q', fQuarter, dtNarrow, 5},
	{'q', fQuarter, dtNumeric + dtDelta, 1}, {'q', fQuarter, dtShort - dtDelta, 3}, {'q', fQuarter, dtLong - dtDelta, 4}, {'q', fQuarter, dtNarrow - dtDelta, 5},
	{'M', fMonth, dtNumeric, 1}, {'M', fMonth, dtShort, 3}, {'M', fMonth, dtLong, 4}, {'M', fMonth, dtNarrow, 5},
	{'L', fMonth, dtNumeric + dtDelta, 1}, {'L', fMonth, dtShort - dtDelta, 3}, {'L', fMonth, dtLong - dtDelta, 4}, {'L', fMonth, dtNarrow - dtDelta, 5},
	{'l', fMonth, dtNumeric + dtDelta, 1},
	{'w', fWeekOfYear, dtNumeric, 1},
	{'W', fWeekOfMonth, dtNumeric, 1},
	{'E', fWeekday, dtShort, 1}, {'E', fWeekday, dtLong, 4}, {'E', fWeekday, dtNarrow, 5}, {'E', fWeekday, dtShorter, 6},
	{'c', fWeekday, dtNumeric + 2*dtDelta, 1}, {'c', fWeekday, dtShort - 2*dtDelta, 3}, {'c', fWeekday, dtLong - 2*dtDelta, 4}, {'c', fWeekday, dtNarrow - 2*dtDelta, 5}, {'c', fWeekday, dtShorter - 2*dtDelta, 6},
	{'e', fWeekday, dtNumeric + dtDelta, 1}, {'e', fWeekday, dtShort - dtDelta, 3}, {'e', fWeekday, dtLong - dtDelta, 4}, {'e', fWeekday, dtNarrow - dtDelta, 5}, {'e', fWeekday, dtShorter - dtDelta, 6},
	{'d', fDay, dtNumeric, 1}, {'g', fDay, dtNumeric + dtDelta, 1},
	{'D', fDayOfYear, dtNumeric, 1},
	{'F', fDayOfWeekInMonth, dtNumeric, 1},
	{'a', fDayPeriod, dtShort, 1}, {'a', fDayPeriod, dtLong, 4}, {'a', fDayPeriod, dtNarrow, 5},
	{'b', fDayPeriod, dtShort - dtDelta, 1}, {'b', fDayPeriod, dtLong - dtDelta, 4}, {'b', fDayPeriod, dtNarrow - dtDelta, 5},
	{'B', fDayPeriod, dtShort - 3*dtDelta, 1}, {'B', fDayPeriod, dtLong - 3*dtDelta, 4}, {'B', fDayPeriod, dtNarrow - 3*dtDelta, 5},
	{'H', fHour, dtNumeric + 10*dtDelta, 1}, {'k', fHour, dtNumeric + 11*dtDelta, 1}, {'h', fHour, dtNumeric, 1}, {'K', fHour, dtNumeric + dtDelta, 1},
	{'J', fHour, dtNumeric + 5*dtDelta, 1}, {'j', fHour, dtNumeric + 6*dtDelta, 1}, {'C', fHour, dtNumeric + 7*dtDelta, 1},
	{'m', fMinute, dtNumeric, 1},
	{'s', fSecond, dtNumeric, 1}, {'A', fSecond, dtNumeric + dtDelta, 1},
	{'S', fFraction, dtNumeric, 1},
	{'v', fZone, dtShort - 2*dtDelta, 1}, {'v', fZone, dtLong - 2*dtDelta, 4},
	{'z', fZone, dtShort, 1}, {'z', fZone, dtLong, 4},
	{'Z', fZone, dtNarrow - dtDelta, 1}, {'Z', fZone, dtLong - dtDelta, 4}, {'Z', fZone, dtShort - dtDelta, 5},
	{'O', fZone, dtShort - dtDelta, 1}, {'O', fZone, dtLong - dtDelta, 4},
	{'V', fZone, dtShort - dtDelta, 1}, {'V', fZone, dtLong - dtDelta, 2}, {'V', fZone, dtLong - 1 - dtDelta, 3}, {'V', fZone, dtLong - 2 - dtDelta, 4},
	{'X', fZone, dtNarrow - dtDelta, 1}, {'X', fZone, dtShort - dtDelta, 2}, {'X', fZone, dtLong - dtDelta, 4},
	{'x', fZone, dtNarrow - dtDelta, 1}, {'x', fZone, dtShort - dtDelta, 2}, {'x', fZone, dtLong - dtDelta, 4},
}

// canonicalRow is ICU's getCanonicalIndex: the row for a field of n
// repeated ch (-1 when ch is no field).
func canonicalRow(ch byte, n int) int {
	best := -1
	for i, r := range dtTypes {
		if r.ch != ch {
			continue
		}
		if r.minLen > n {
			break
		}
		best = i
	}
	return best
}

// patItem is one item of a pattern: a field (run of one letter) or a
// literal (already unquoted).
type patItem struct {
	field bool
	ch    byte
	n     int
	lit   string
}

// parsePattern splits an LDML pattern into fields and literals.
func parsePattern(p string) []patItem {
	var out []patItem
	addLit := func(s string) {
		if len(out) > 0 && !out[len(out)-1].field {
			out[len(out)-1].lit += s
			return
		}
		out = append(out, patItem{lit: s})
	}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			if i+1 < len(p) && p[i+1] == '\'' {
				addLit("'")
				i += 2
				continue
			}
			j := i + 1
			var sb strings.Builder
			for j < len(p) {
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						sb.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				sb.WriteByte(p[j])
				j++
			}
			addLit(sb.String())
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			out = append(out, patItem{field: true, ch: c, n: j - i})
			i = j
		default:
			j := i + 1
			for j < len(p) && p[j] != '\'' && !(p[j] >= 'a' && p[j] <= 'z' || p[j] >= 'A' && p[j] <= 'Z') {
				j++
			}
			addLit(p[i:j])
			i = j
		}
	}
	return out
}

// quoteLit quotes a literal for a pattern.
func quoteLit(s string) string {
	if s == "" {
		return ""
	}
	needs := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '\'' {
			needs = true
		}
	}
	if !needs {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func itemsString(items []patItem) string {
	var sb strings.Builder
	for _, it := range items {
		if it.field {
			sb.WriteString(strings.Repeat(string(it.ch), it.n))
		} else {
			sb.WriteString(quoteLit(it.lit))
		}
	}
	return sb.String()
}

// skeleton is ICU's PtnSkeleton: per field, the original chars and the
// type; base holds the canonical chars.
type skeleton struct {
	orig    [fieldCount]string
	base    [fieldCount]string
	typ     [fieldCount]int
	addedDP bool
}

func (s *skeleton) String() string {
	return strings.Join(s.orig[:], "")
}

func (s *skeleton) baseString() string {
	return strings.Join(s.base[:], "")
}

func (s *skeleton) mask() int {
	m := 0
	for i := range s.typ {
		if s.typ[i] != 0 {
			m |= 1 << i
		}
	}
	return m
}

// newSkeleton is ICU's DateTimeMatcher::set.
func newSkeleton(p string) *skeleton {
	s := &skeleton{}
	for _, it := range parsePattern(p) {
		if !it.field {
			continue
		}
		r := canonicalRow(it.ch, it.n)
		if r < 0 {
			continue
		}
		row := dtTypes[r]
		s.orig[row.field] = strings.Repeat(string(it.ch), it.n)
		s.base[row.field] = strings.Repeat(string(row.ch), row.minLen)
		t := row.typ
		if t > 0 {
			t += it.n
		}
		s.typ[row.field] = t
	}
	if s.orig[fMinute] != "" && s.orig[fFraction] != "" && s.orig[fSecond] == "" {
		s.orig[fSecond], s.base[fSecond], s.typ[fSecond] = "s", "s", dtNumeric+1
	}
	if h := s.orig[fHour]; h != "" {
		if h[0] == 'h' || h[0] == 'K' {
			if s.orig[fDayPeriod] == "" {
				s.orig[fDayPeriod], s.base[fDayPeriod], s.typ[fDayPeriod] = "a", "a", dtShort
				s.addedDP = true
			}
		} else if s.orig[fDayPeriod] != "" {
			s.orig[fDayPeriod], s.base[fDayPeriod], s.typ[fDayPeriod] = "", "", 0
		}
	}
	return s
}

const (
	extraField   = 0x10000
	missingField = 0x1000
)

// distance is ICU's DateTimeMatcher::getDistance.
func (s *skeleton) distance(o *skeleton, include int) (d, missing, extra int) {
	for i := 0; i < fieldCount; i++ {
		my := 0
		if include&(1<<i) != 0 {
			my = s.typ[i]
		}
		other := o.typ[i]
		if my == other {
			continue
		}
		switch {
		case my == 0:
			d += extraField
			extra |= 1 << i
		case other == 0:
			d += missingField
			missing |= 1 << i
		default:
			d += abs(my - other)
		}
	}
	return
}

type ptnEntry struct {
	skel      *skeleton
	key       string
	pattern   string
	specified bool
}

// dtpg is one locale's generator.
type dtpg struct {
	boot        [52][]*ptnEntry
	dateTime    [4]string // full, long, medium, short
	appendItems [fieldCount]string
	fieldNames  [fieldCount]string
	hourChar    byte
	decimal     string
}

func bootIndex(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return 26 + int(c-'a')
	}
	return -1
}

func (g *dtpg) add(pattern, skelKey string, override bool) {
	var s *skeleton
	if skelKey == "" {
		s = newSkeleton(pattern)
	} else {
		s = newSkeleton(skelKey)
	}
	base := s.baseString()
	if base == "" {
		return
	}
	bi := bootIndex(base[0])
	if bi < 0 {
		return
	}
	var dupBase, dupSkel, dupType *ptnEntry
	for _, e := range g.boot[bi] {
		eb := e.skel.baseString()
		if eb == base && dupBase == nil {
			dupBase = e
		}
		if e.skel.String() == s.String() && dupSkel == nil {
			dupSkel = e
		}
		if eb == base && e.skel.typ == s.typ && dupType == nil {
			dupType = e
		}
	}
	if dupBase != nil && (!dupBase.specified || skelKey != "" && !override) && !override {
		return
	}
	if dupSkel != nil && (!override || skelKey != "" && dupSkel.specified) {
		return
	}
	if dupType != nil {
		dupType.pattern = pattern
		dupType.specified = skelKey != ""
		dupType.skel = s
		dupType.key = skelKey
		return
	}
	g.boot[bi] = append(g.boot[bi], &ptnEntry{skel: s, key: skelKey, pattern: pattern, specified: skelKey != ""})
}

var styleNames = [4]string{"full", "long", "medium", "short"}

// patternValue reads a CLDR format entry (a string, or {"_value": …}).
func patternValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		s, _ := x["_value"].(string)
		return s
	}
	return ""
}

// newDTPG builds the generator of a data locale with hourChar the
// locale's preferred hour ('h', 'H', 'K' or 'k').
func newDTPG(d cldr.Data, greg map[string]any, hourChar byte) *dtpg {
	g := &dtpg{hourChar: hourChar}
	for _, c := range "GyQMwWEDFdaHmsSv" {
		g.add(string(c), "", false)
	}
	for _, st := range styleNames {
		g.add(patternValue(greg["dateFormats"].(map[string]any)[st]), "", false)
		g.add(patternValue(greg["timeFormats"].(map[string]any)[st]), "", false)
	}
	dtf, _ := greg["dateTimeFormats"].(map[string]any)
	for i, st := range styleNames {
		g.dateTime[i] = patternValue(dtf[st])
		if at, _ := cldr.Data(greg).At("dateTimeFormats-atTime", "standard", st).(string); at != "" {
			g.dateTime[i] = at
		}
	}
	af, _ := dtf["availableFormats"].(map[string]any)
	keys := make([]string, 0, len(af))
	for k := range af {
		if strings.Contains(k, "-alt-") {
			continue
		}
		if i := strings.Index(k, "-count-"); i >= 0 && k[i+7:] != "other" {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		skel := k
		if i := strings.Index(k, "-count-"); i >= 0 {
			skel = k[:i]
		}
		g.add(af[k].(string), skel, true)
	}
	ai, _ := dtf["appendItems"].(map[string]any)
	for name, f := range map[string]int{"Era": fEra, "Year": fYear, "Quarter": fQuarter, "Month": fMonth, "Week": fWeekOfYear, "Day-Of-Week": fWeekday, "Day": fDay, "Hour": fHour, "Minute": fMinute, "Second": fSecond, "Timezone": fZone} {
		if s, ok := ai[name].(string); ok {
			g.appendItems[f] = s
		}
	}
	for name, f := range map[string]int{"era": fEra, "year": fYear, "quarter": fQuarter, "month": fMonth, "week": fWeekOfYear, "weekday": fWeekday, "day": fDay, "dayperiod": fDayPeriod, "hour": fHour, "minute": fMinute, "second": fSecond, "zone": fZone} {
		g.fieldNames[f] = d.Str("fields", name, "displayName")
	}
	g.decimal = d.Str("numbers", "symbols-numberSystem-"+d.Str("numbers", "defaultNumberingSystem"), "decimal")
	if g.decimal == "" {
		g.decimal = "."
	}
	return g
}

// getBestRaw is ICU's getBestRaw.
func (g *dtpg) getBestRaw(src *skeleton, include int) (best *ptnEntry, missing, extra int) {
	bestD := 0x7fffffff
	bestMissing := -1
	for bi := range g.boot {
		for _, e := range g.boot[bi] {
			d, m, x := src.distance(e.skel, include)
			if d < bestD || d == bestD && bestMissing < m {
				bestD, bestMissing = d, m
				best, missing, extra = e, m, x
				if d == 0 {
					return
				}
			}
		}
	}
	return
}

const (
	flagCapJ    = 1
	flagFixFrac = 2
	// flagNoHourLength: without UDATPG_MATCH_HOUR_FIELD_LENGTH (ICU's
	// DateFormat::getBestPattern), the hour keeps the pattern's width
	flagNoHourLength = 4
	dateMask         = 1<<fDayPeriod - 1
	timeMask         = (1<<fieldCount - 1) &^ dateMask
	fractionMask     = 1 << fFraction
	secFracMask      = 1<<fSecond | 1<<fFraction
)

// adjustFieldTypes is ICU's adjustFieldTypes with options
// UDATPG_MATCH_HOUR_FIELD_LENGTH (as V8 asks).
func (g *dtpg) adjust(pattern string, spec *skeleton, req *skeleton, flags int) string {
	items := parsePattern(pattern)
	var out []patItem
	for _, it := range items {
		if !it.field {
			out = append(out, it)
			continue
		}
		r := canonicalRow(it.ch, it.n)
		if r < 0 {
			out = append(out, it)
			continue
		}
		row := dtTypes[r]
		f := row.field
		if f == fDayPeriod && flags&flagCapJ != 0 {
			continue
		}
		if flags&flagFixFrac != 0 && f == fSecond {
			out = append(out, it, patItem{lit: g.decimal}, patItem{field: true, ch: 'S', n: len(req.orig[fFraction])})
			continue
		}
		if req.typ[f] == 0 {
			out = append(out, it)
			continue
		}
		reqCh := req.orig[f][0]
		reqLen := len(req.orig[f])
		if reqCh == 'E' && reqLen < 3 {
			reqLen = 3
		}
		adj := reqLen
		if f == fMinute || f == fSecond || f == fHour && flags&flagNoHourLength != 0 {
			adj = it.n
		} else if spec != nil && reqCh != 'c' && reqCh != 'e' {
			skelLen := len(spec.orig[f])
			patNum := row.typ > 0
			reqNum := req.typ[f] > 0
			if skelLen == reqLen || patNum != reqNum {
				adj = it.n
			}
		}
		c := it.ch
		if f != fHour && f != fMonth && f != fWeekday && (f != fYear || reqCh == 'Y') {
			c = reqCh
		}
		if c == 'E' && adj < 3 {
			c = 'e'
		}
		if f == fHour && g.hourChar != 0 {
			switch {
			case flags&flagCapJ != 0 || reqCh == g.hourChar:
				c = g.hourChar
			case reqCh == 'h' && g.hourChar == 'K':
				c = 'K'
			case reqCh == 'H' && g.hourChar == 'k':
				c = 'k'
			case reqCh == 'k' && g.hourChar == 'H':
				c = 'H'
			case reqCh == 'K' && g.hourChar == 'h':
				c = 'h'
			}
		}
		out = append(out, patItem{field: true, ch: c, n: adj})
	}
	return itemsString(out)
}

// mapMeta is ICU's mapSkeletonMetacharacters for 'j' and 'J'.
func (g *dtpg) mapMeta(sk string) (string, int) {
	var sb strings.Builder
	flags := 0
	for i := 0; i < len(sk); i++ {
		c := sk[i]
		switch c {
		case 'j':
			n := 0
			for i+1 < len(sk) && sk[i+1] == c {
				n++
				i++
			}
			hourLen := 1 + n&1
			dpLen := 1
			if n >= 2 {
				dpLen = 3 + n>>1
			}
			if g.hourChar == 'H' || g.hourChar == 'k' {
				dpLen = 0
			}
			sb.WriteString(strings.Repeat("a", dpLen))
			sb.WriteString(strings.Repeat(string(g.hourChar), hourLen))
		case 'J':
			sb.WriteByte('H')
			flags |= flagCapJ
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), flags
}

// bestPattern is ICU's getBestPattern(skeleton, UDATPG_MATCH_HOUR_FIELD_LENGTH).
func (g *dtpg) bestPattern(sk string) string { return g.bestPatternFlags(sk, 0) }

// bestPatternFlags is getBestPattern with flagNoHourLength for ICU's
// options without UDATPG_MATCH_HOUR_FIELD_LENGTH.
func (g *dtpg) bestPatternFlags(sk string, opt int) string {
	mapped, flags := g.mapMeta(sk)
	flags |= opt
	req := newSkeleton(mapped)
	best, missing, extra := g.getBestRaw(req, -1)
	if best != nil && missing == 0 && extra == 0 {
		var spec *skeleton
		if best.specified {
			spec = best.skel
		}
		return g.adjust(best.pattern, spec, req, flags)
	}
	need := req.mask()
	datePat := g.bestAppending(req, need&dateMask, flags)
	timePat := g.bestAppending(req, need&timeMask, flags)
	if datePat == "" {
		return timePat
	}
	if timePat == "" {
		return datePat
	}
	style := 3
	switch len(req.base[fMonth]) {
	case 4:
		style = 1
		if req.base[fWeekday] != "" {
			style = 0
		}
	case 3:
		style = 2
	}
	return strings.Replace(strings.Replace(g.dateTime[style], "{1}", datePat, 1), "{0}", timePat, 1)
}

func topBit(m int) int {
	if m == 0 {
		return 0
	}
	n := -1
	for m != 0 {
		m >>= 1
		n++
	}
	if n > fZone {
		return fZone
	}
	return n
}

// bestAppending is ICU's getBestAppending.
func (g *dtpg) bestAppending(req *skeleton, fields, flags int) string {
	if fields == 0 {
		return ""
	}
	spec := func(e *ptnEntry) *skeleton {
		if e != nil && e.specified {
			return e.skel
		}
		return nil
	}
	best, missing, _ := g.getBestRaw(req, fields)
	specified := spec(best)
	result := g.adjust(best.pattern, specified, req, flags)
	last := 0
	for missing != 0 {
		if last == missing {
			break
		}
		if missing&secFracMask == fractionMask && fields&secFracMask == secFracMask {
			result = g.adjust(result, specified, req, flags|flagFixFrac)
			missing &^= fractionMask
			continue
		}
		start := missing
		e, m2, _ := g.getBestRaw(req, missing)
		specified = spec(e)
		temp := g.adjust(e.pattern, specified, req, flags)
		top := topBit(start &^ m2)
		if g.appendItems[top] != "" {
			name := "'" + strings.ReplaceAll(g.fieldNames[top], "'", "''") + "'"
			result = strings.NewReplacer("{0}", result, "{1}", temp, "{2}", name).Replace(g.appendItems[top])
		}
		missing = m2
		last = missing
	}
	return result
}

package web

import (
	"sort"
	"strings"
	"time"
)

// DateTimeFormat.prototype.formatRange as V8 does it: ICU's
// DateIntervalFormat (dtitvfmt.cpp, dtitvinf.cpp) made from the skeleton
// of the DateTimeFormat's pattern and the locale with the resolved hour
// cycle, then V8's reading of the result (no interval span: the
// DateTimeFormat's own format of the start; else parts sourced by the
// spans).
//
// Hand-written because no Go library implements ICU's interval
// algorithm, and it decides the output in ways CLDR's data alone does
// not: the skeleton is normalized (one hour letter, "yMd" numeric months
// folded), the interval patterns keep their own field widths unless the
// best interval skeleton differs from the request, a skeleton with no
// matching interval skeleton (a stand-alone month "LLL") or a date
// differing beyond the time-only skeleton falls back to
// intervalFormatFallback with the pattern ICU's generator gives without
// UDATPG_MATCH_HOUR_FIELD_LENGTH, and a same-day range of a date-and-time
// skeleton is the Gregorian date-time glue over the date and a time
// interval. Pinned by the workerd probe (TestIntlProbe, dtf-range) and
// TestIntlRange_ICUAlgorithm.

// The calendar fields ICU's interval patterns are indexed by
// (DateIntervalInfo::IntervalPatternIndex), in ICU's order of comparison.
const (
	iEra = iota
	iYear
	iMonth
	iDate
	iAmPm
	iHour
	iMinute
	iSecond
	iMilli
	iCount
)

// itvLetter is ICU's fgCalendarFieldToPatternLetter for those fields.
var itvLetter = [iCount]byte{'G', 'y', 'M', 'd', 'a', 'h', 'm', 's', 'S'}

// itvLevel is ICU's fgCalendarFieldToLevel for those fields.
var itvLevel = [iCount]int{0, 10, 20, 30, 40, 50, 60, 70, 80}

// charLevel is ICU's SimpleDateFormat::getLevelFromChar (-1: no level).
func charLevel(c byte) int {
	switch c {
	case 'G', 'O', 'V', 'X', 'Z', 'g', 'l', 'v', 'x', 'z', ':':
		return 0
	case 'U', 'Y', 'r', 'u', 'y':
		return 10
	case 'D', 'L', 'M', 'Q', 'q', 'w':
		return 20
	case 'E', 'F', 'W', 'c', 'd', 'e':
		return 30
	case 'A', 'a':
		return 40
	case 'H', 'K', 'h', 'k':
		return 50
	case 'm':
		return 60
	case 's':
		return 70
	case 'S':
		return 80
	}
	return -1
}

func isPatLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isFieldUnitIgnored is ICU's SimpleDateFormat::isFieldUnitIgnored: no
// field of pattern is as small as field.
func isFieldUnitIgnored(pattern string, field int) bool {
	lvl := itvLevel[field]
	inQuote := false
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if c == '\'' {
			if i+1 < len(pattern) && pattern[i+1] == '\'' {
				i++
			} else {
				inQuote = !inQuote
			}
			continue
		}
		if !inQuote && isPatLetter(c) && lvl <= charLevel(c) {
			return false
		}
	}
	return true
}

// itvPattern is ICU's PatternInfo: an interval pattern split at its first
// repeated field; first == "" means second is a whole pattern for the
// fallback.
type itvPattern struct {
	first, second string
	laterFirst    bool
}

// intervalFormat is one DateTimeFormat's DateIntervalFormat.
type intervalFormat struct {
	l          *dtfLocale
	g          *dtpg     // the generator of the locale with the hour cycle (DateFormat::getBestPattern)
	own        []patItem // the DateTimeFormat's pattern (V8's format when there is no range)
	skeleton   string    // fSkeleton: staticGetSkeleton of the pattern
	fmt        string    // fDateFormat: createInstanceForSkeleton(fSkeleton)
	datePat    string    // fDatePattern ("" when unset)
	timePat    string    // fTimePattern
	glue       string    // fDateTimeFormat
	fallback   string    // intervalFormatFallback
	laterFirst bool      // DateIntervalInfo's default order
	info       map[string]*[iCount]string
	ptn        [iCount]itvPattern
}

// intervalInfo is ICU's DateIntervalInfo of the locale's calendar: per
// interval skeleton, the pattern per greatest differing field.
func (l *dtfLocale) intervalInfo() map[string]*[iCount]string {
	l.itvOnce.Do(func() {
		l.itv = map[string]*[iCount]string{}
		for sk, v := range l.calMap("dateTimeFormats", "intervalFormats") {
			m, ok := v.(map[string]any)
			if !ok || strings.Contains(sk, "-alt-") {
				continue
			}
			ps := &[iCount]string{}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys) // ICU's resource order: the first key of a field wins
			for _, k := range keys {
				s, _ := m[k].(string)
				f := -1
				switch k {
				case "G":
					f = iEra
				case "y":
					f = iYear
				case "M":
					f = iMonth
				case "d":
					f = iDate
				case "a", "B":
					f = iAmPm
				case "h", "H":
					f = iHour
				case "m":
					f = iMinute
				}
				if f >= 0 && ps[f] == "" {
					ps[f] = s
				}
			}
			l.itv[sk] = ps
		}
	})
	return l.itv
}

// intervalFormats keeps an intervalFormat per locale, pattern and hour cycle.
var intervalFormats = boundedCache[[2]string, *intervalFormat]{max: 4096}

// getIntervalFormat is V8's LazyCreateDateIntervalFormat.
func (l *dtfLocale) getIntervalFormat(pattern string) *intervalFormat {
	return intervalFormats.get([2]string{l.key, pattern}, func() *intervalFormat { return newIntervalFormat(l, pattern) })
}

// staticGetSkeleton is ICU's DateTimePatternGenerator::staticGetSkeleton.
func staticGetSkeleton(pattern string) string {
	s := newSkeleton(pattern)
	if s.addedDP {
		s.orig[fDayPeriod] = ""
	}
	return s.String()
}

func newIntervalFormat(l *dtfLocale, pattern string) *intervalFormat {
	hour := l.hourChar
	if hc := patternHourCycle(pattern); hc != "" {
		hour = hcChar[hc] // V8 passes the resolved hour cycle as -u-hc
	}
	f := &intervalFormat{l: l, g: l.gen(hour), own: cachedItems(pattern), info: l.intervalInfo()}
	f.skeleton = staticGetSkeleton(pattern)
	f.fmt = f.best(f.skeleton)
	f.fallback = l.greg("dateTimeFormats", "intervalFormats", "intervalFormatFallback")
	if f.fallback == "" {
		f.fallback = "{0} – {1}"
	}
	i0, i1 := strings.Index(f.fallback, "{0}"), strings.Index(f.fallback, "{1}")
	f.laterFirst = i1 >= 0 && i0 > i1
	for i := range f.ptn {
		f.ptn[i].laterFirst = f.laterFirst
	}
	f.initializePattern()
	return f
}

// best is DateFormat::getBestPattern: the generator without
// UDATPG_MATCH_HOUR_FIELD_LENGTH.
func (f *intervalFormat) best(sk string) string {
	return f.g.bestPatternFlags(sk, flagNoHourLength)
}

// initializePattern is DateIntervalFormat::initializePattern.
func (f *intervalFormat) initializePattern() {
	converted := f.normalizeHourMetacharacters(f.skeleton)
	dateSk, normDate, timeSk, normTime := dateTimeSkeleton(converted)
	if timeSk != "" && dateSk != "" {
		if greg := f.l.d.Calendar("gregorian"); greg != nil {
			dtf, _ := greg["dateTimeFormats"].(map[string]any)
			if g := patternValue(dtf["medium"]); len(g) >= 3 {
				f.glue = g
			}
		}
	}
	found := f.setSeparateDateTimePtn(normDate, normTime)
	prefixTime := func() {
		p := f.best("yMd" + timeSk)
		for _, i := range []int{iDate, iMonth, iYear} {
			f.setPatternInfo(i, "", p, f.laterFirst)
		}
		f.setPatternInfo(iEra, "", f.best("GyMd"+timeSk), f.laterFirst)
	}
	if !found {
		if timeSk != "" && dateSk == "" {
			prefixTime()
		}
		return
	}
	switch {
	case timeSk == "":
	case dateSk == "":
		prefixTime()
	default:
		sk := f.skeleton
		for _, x := range []struct {
			field  int
			letter string
		}{{iDate, "d"}, {iMonth, "M"}, {iYear, "y"}, {iEra, "G"}} {
			if !strings.Contains(dateSk, x.letter) {
				sk = x.letter + sk
				f.setPatternInfo(x.field, "", f.best(sk), f.laterFirst)
			}
		}
		if f.glue == "" {
			return
		}
		datePattern := f.best(dateSk)
		for _, i := range []int{iAmPm, iHour, iMinute} {
			ip := f.ptn[i]
			if ip.first == "" {
				continue
			}
			combined := strings.Replace(strings.Replace(f.glue, "{0}", ip.first+ip.second, 1), "{1}", datePattern, 1)
			f.setIntervalPatternOrder(i, combined, ip.laterFirst)
		}
	}
}

// normalizeHourMetacharacters is DateIntervalFormat's: the first hour
// field becomes one letter of the locale's hour cycle (with its day
// period for a 12-hour cycle) and the skeleton's own day period goes.
func (f *intervalFormat) normalizeHourMetacharacters(sk string) string {
	var hourMeta, dpChar byte
	hourStart, hourLen, dpStart, dpLen := 0, 0, 0, 0
	for i := 0; i < len(sk); i++ {
		c := sk[i]
		switch {
		case strings.IndexByte("jJChHkK", c) >= 0:
			if hourMeta == 0 {
				hourMeta, hourStart = c, i
			}
			hourLen++
		case c == 'a' || c == 'b' || c == 'B':
			if dpChar == 0 {
				dpChar, dpStart = c, i
			}
			dpLen++
		default:
			if hourMeta != 0 && dpChar != 0 {
				i = len(sk)
			}
		}
	}
	if hourMeta == 0 {
		return sk
	}
	hourChar := byte('H')
	conv := f.best(string(hourMeta))
	var sb strings.Builder // the pattern without its quoted text
	for _, it := range parsePattern(conv) {
		if it.field {
			sb.WriteString(strings.Repeat(string(it.ch), it.n))
		}
	}
	cp := sb.String()
	switch {
	case strings.IndexByte(cp, 'h') >= 0:
		hourChar = 'h'
	case strings.IndexByte(cp, 'K') >= 0:
		hourChar = 'K'
	case strings.IndexByte(cp, 'k') >= 0:
		hourChar = 'k'
	}
	switch {
	case strings.IndexByte(cp, 'b') >= 0:
		dpChar = 'b'
	case strings.IndexByte(cp, 'B') >= 0:
		dpChar = 'B'
	case dpChar == 0:
		dpChar = 'a'
	}
	hd := string(hourChar)
	if hourChar != 'H' && hourChar != 'k' {
		n := 1
		if dpLen >= 5 || hourLen >= 5 {
			n = 5
		} else if dpLen >= 3 || hourLen >= 3 {
			n = 3
		}
		hd += strings.Repeat(string(dpChar), n)
	}
	out := sk[:hourStart] + hd + sk[hourStart+hourLen:]
	if dpStart > hourStart {
		dpStart += len(hd) - hourLen
	}
	if dpLen > 0 {
		out = out[:dpStart] + out[dpStart+dpLen:]
	}
	return out
}

// dateTimeSkeleton is DateIntervalFormat::getDateTimeSkeleton.
func dateTimeSkeleton(sk string) (date, normDate, tm, normTime string) {
	var d, nd, t, nt strings.Builder
	var eN, dN, mN, yN, minN, vN, zN int
	var hourChar byte
	for i := 0; i < len(sk); i++ {
		c := sk[i]
		switch c {
		case 'E':
			d.WriteByte(c)
			eN++
		case 'd':
			d.WriteByte(c)
			dN++
		case 'M':
			d.WriteByte(c)
			mN++
		case 'y':
			d.WriteByte(c)
			yN++
		case 'G', 'Y', 'u', 'Q', 'q', 'L', 'l', 'W', 'w', 'D', 'F', 'g', 'e', 'c', 'U', 'r':
			nd.WriteByte(c)
			d.WriteByte(c)
		case 'h', 'H', 'k', 'K':
			t.WriteByte(c)
			if hourChar == 0 {
				hourChar = c
			}
		case 'm':
			t.WriteByte(c)
			minN++
		case 'z':
			zN++
			t.WriteByte(c)
		case 'v':
			vN++
			t.WriteByte(c)
		case 'a', 'V', 'Z', 'j', 's', 'S', 'A', 'b', 'B':
			t.WriteByte(c)
			nt.WriteByte(c)
		}
	}
	nd.WriteString(strings.Repeat("y", yN))
	if mN > 0 {
		if mN < 3 {
			nd.WriteByte('M')
		} else {
			nd.WriteString(strings.Repeat("M", min(mN, 5)))
		}
	}
	if eN > 0 {
		if eN <= 3 {
			nd.WriteByte('E')
		} else {
			nd.WriteString(strings.Repeat("E", min(eN, 5)))
		}
	}
	if dN > 0 {
		nd.WriteByte('d')
	}
	if hourChar != 0 {
		nt.WriteByte(hourChar)
	}
	if minN > 0 {
		nt.WriteByte('m')
	}
	if zN > 0 {
		nt.WriteByte('z')
	}
	if vN > 0 {
		nt.WriteByte('v')
	}
	return d.String(), nd.String(), t.String(), nt.String()
}

// skeletonWidths is DateIntervalInfo::parseSkeleton.
func skeletonWidths(sk string) (w [128]int) {
	for i := 0; i < len(sk); i++ {
		if sk[i] < 128 {
			w[sk[i]]++
		}
	}
	return
}

// bestSkeleton is DateIntervalInfo::getBestSkeleton: the interval
// skeleton nearest sk and how it differs (0 the same, 1 field widths,
// 2 z/v, K/h, k/H or a day period, -1 other fields).
func (f *intervalFormat) bestSkeleton(sk string) (string, int) {
	replaced := false
	if strings.ContainsAny(sk, "zkKab") {
		sk = strings.NewReplacer("z", "v", "k", "H", "K", "h", "a", "", "b", "").Replace(sk)
		replaced = true
	}
	in := skeletonWidths(sk)
	keys := make([]string, 0, len(f.info))
	for k := range f.info {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, bestD, info := "", int(^uint(0)>>1), 0
	for _, k := range keys {
		w := skeletonWidths(k)
		d, fd := 0, 1
		for c := 'A'; c <= 'z'; c++ {
			a, b := in[c], w[c]
			switch {
			case a == b:
			case a == 0 || b == 0:
				fd = -1
				d += 0x1000
			case c == 'M' && (a <= 2) != (b <= 2):
				d += 0x100
			default:
				d += max(a-b, b-a)
			}
		}
		if d < bestD {
			best, bestD, info = k, d, fd
		}
		if d == 0 {
			info = 0
			break
		}
	}
	if best != "" && replaced && info != -1 {
		info = 2
	}
	return best, info
}

func (f *intervalFormat) pattern(sk string, field int) string {
	if ps := f.info[sk]; ps != nil {
		return ps[field]
	}
	return ""
}

// setSeparateDateTimePtn is DateIntervalFormat's: the interval patterns
// of the date or the time skeleton; false when no interval skeleton fits.
func (f *intervalFormat) setSeparateDateTimePtn(normDate, normTime string) bool {
	sk := normDate
	if normTime != "" {
		sk = normTime
	}
	best, info := f.bestSkeleton(sk)
	if best == "" {
		return false
	}
	if normDate != "" {
		f.datePat = f.best(normDate)
	}
	if normTime != "" {
		f.timePat = f.best(normTime)
	}
	if info == -1 {
		return false
	}
	// ICU passes the skeletons by pointer: once the month's pattern came
	// from an extended skeleton, the year's and era's calls read (and
	// extend) that one
	skP, bestP := &sk, &best
	if normTime == "" {
		var ext, extBest string
		f.setIntervalPattern(iDate, skP, bestP, info, &ext, &extBest)
		if f.setIntervalPattern(iMonth, skP, bestP, info, &ext, &extBest) {
			skP, bestP = &ext, &extBest
		}
		f.setIntervalPattern(iYear, skP, bestP, info, &ext, &extBest)
		f.setIntervalPattern(iEra, skP, bestP, info, &ext, &extBest)
	} else {
		f.setIntervalPattern(iMinute, skP, bestP, info, nil, nil)
		f.setIntervalPattern(iHour, skP, bestP, info, nil, nil)
		f.setIntervalPattern(iAmPm, skP, bestP, info, nil, nil)
	}
	return true
}

// setIntervalPattern is DateIntervalFormat's (the one with the
// extended skeleton): true when it found the pattern by extending the
// skeleton with the field's letter.
func (f *intervalFormat) setIntervalPattern(field int, sk, bestP *string, info int, ext, extBest *string) bool {
	best := *bestP
	p := f.pattern(best, field)
	suppress := strings.IndexByte(f.skeleton, 'J') >= 0
	if p == "" {
		if isFieldUnitIgnored(best, field) {
			return false
		}
		if field == iAmPm {
			if p = f.pattern(best, iHour); p != "" {
				f.setIntervalPatternOrder(field, adjustFieldWidth(*sk, best, p, info, suppress), f.laterFirst)
			}
			return false
		}
		if ext != nil {
			letter := string(itvLetter[field])
			*ext, *extBest = letter+*sk, letter+best
			best = *bestP // extBest when the caller passed it
			p = f.pattern(*extBest, field)
			if p == "" && info == 0 {
				var tmp string
				tmp, info = f.bestSkeleton(*extBest)
				if tmp != "" && info != -1 {
					p = f.pattern(tmp, field)
					best = tmp
				}
			}
		}
	}
	if p != "" {
		if info != 0 || suppress {
			p = adjustFieldWidth(*sk, best, p, info, suppress)
		}
		f.setIntervalPatternOrder(field, p, f.laterFirst)
		if ext != nil && *ext != "" {
			return true
		}
	}
	return false
}

// setIntervalPatternOrder is DateIntervalFormat::setIntervalPattern
// (field, pattern, laterDateFirst): the pattern split in two.
func (f *intervalFormat) setIntervalPatternOrder(field int, p string, laterFirst bool) {
	if s, ok := strings.CutPrefix(p, "latestFirst:"); ok {
		p, laterFirst = s, true
	} else if s, ok := strings.CutPrefix(p, "earliestFirst:"); ok {
		p, laterFirst = s, false
	}
	i := splitPatternInto2Part(p)
	f.setPatternInfo(field, p[:i], p[i:], laterFirst)
}

func (f *intervalFormat) setPatternInfo(field int, first, second string, laterFirst bool) {
	f.ptn[field] = itvPattern{first, second, laterFirst}
}

// splitPatternInto2Part is DateIntervalFormat's: the index where the
// first repeated field starts.
func splitPatternInto2Part(p string) int {
	var seen [128]bool
	inQuote := false
	var prev byte
	count := 0
	found := false
	i := 0
	for ; i < len(p); i++ {
		c := p[i]
		if c != prev && count > 0 {
			if seen[prev] {
				found = true
				break
			}
			seen[prev] = true
			count = 0
		}
		if c == '\'' {
			if i+1 < len(p) && p[i+1] == '\'' {
				i++
			} else {
				inQuote = !inQuote
			}
		} else if !inQuote && isPatLetter(c) {
			prev = c
			count++
		}
	}
	if count > 0 && !found && !seen[prev] {
		count = 0
	}
	return i - count
}

// adjustFieldWidth is DateIntervalFormat's: widens the fields the
// interval skeleton has narrower than the request.
func adjustFieldWidth(in, best, p string, info int, suppressDP bool) string {
	inW, bestW := skeletonWidths(in), skeletonWidths(best)
	if suppressDP {
		p = findReplaceInPattern(p, "\u00a0a", "")
		p = findReplaceInPattern(p, "\u202fa", "")
		p = findReplaceInPattern(p, "a\u00a0", "")
		p = findReplaceInPattern(p, "a\u202f", "")
		p = findReplaceInPattern(p, "a", "")
		p = findReplaceInPattern(p, "  ", " ")
		p = strings.TrimSpace(p)
	}
	if info == 2 {
		if strings.IndexByte(in, 'z') >= 0 {
			p = findReplaceInPattern(p, "v", "z")
		}
		if strings.IndexByte(in, 'K') >= 0 {
			p = findReplaceInPattern(p, "h", "K")
		}
		if strings.IndexByte(in, 'k') >= 0 {
			p = findReplaceInPattern(p, "H", "k")
		}
		if strings.IndexByte(in, 'b') >= 0 {
			p = findReplaceInPattern(p, "a", "b")
		}
	}
	if strings.IndexByte(p, 'a') >= 0 && bestW['a'] == 0 {
		bestW['a'] = 1
	}
	if strings.IndexByte(p, 'b') >= 0 && bestW['b'] == 0 {
		bestW['b'] = 1
	}
	widen := func(prev byte, count int) string {
		c := prev
		if c == 'L' {
			c = 'M'
		}
		if bestW[c] == count && inW[c] > bestW[c] {
			return strings.Repeat(string(prev), inW[c]-bestW[c])
		}
		return ""
	}
	var out strings.Builder
	inQuote := false
	var prev byte
	count := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != prev && count > 0 {
			out.WriteString(widen(prev, count))
			count = 0
		}
		out.WriteByte(c)
		if c == '\'' {
			if i+1 < len(p) && p[i+1] == '\'' {
				i++
				out.WriteByte('\'')
			} else {
				inQuote = !inQuote
			}
		} else if !inQuote && isPatLetter(c) {
			prev = c
			count++
		}
	}
	if count > 0 {
		out.WriteString(widen(prev, count))
	}
	return out.String()
}

// findReplaceInPattern replaces outside quoted text.
func findReplaceInPattern(p, old, nw string) string {
	if strings.IndexByte(p, '\'') < 0 {
		return strings.ReplaceAll(p, old, nw)
	}
	var out strings.Builder
	for {
		q := strings.IndexByte(p, '\'')
		if q < 0 {
			break
		}
		q2 := strings.IndexByte(p[q+1:], '\'')
		if q2 < 0 {
			q2 = len(p) - 1
		} else {
			q2 += q + 1
		}
		out.WriteString(strings.ReplaceAll(p[:q], old, nw))
		out.WriteString(p[q : q2+1])
		p = p[q2+1:]
	}
	out.WriteString(strings.ReplaceAll(p, old, nw))
	return out.String()
}

// rseg is a piece of a range's text: a field (ch its pattern letter) or
// literal text (ch 0).
type rseg struct {
	ch  byte
	val string
}

// segs formats ms with pattern p.
func (f *intervalFormat) segs(out []rseg, p string, ms int64, z *zoneInfo) []rseg {
	items := cachedItems(p)
	t := time.UnixMilli(ms).In(z.loc)
	hasMin, hasSec := hasMinSec(items)
	cd := calendarDate(f.l.calName, t)
	for _, it := range items {
		if !it.field {
			out = append(out, rseg{0, it.lit})
			continue
		}
		out = append(out, rseg{it.ch, f.l.fieldText(it, t, ms, z, hasMin, hasSec, &cd)})
	}
	return out
}

// greatestDiff is the greatest calendar field that differs between a
// and b (ICU compares era, year, month, date, AM/PM, hour, minute,
// second, millisecond), or -1.
func (f *intervalFormat) greatestDiff(a, b int64, z *zoneInfo) int {
	ta, tb := time.UnixMilli(a).In(z.loc), time.UnixMilli(b).In(z.loc)
	ca, cb := calendarDate(f.l.calName, ta), calendarDate(f.l.calName, tb)
	switch {
	case ca.era != cb.era:
		return iEra
	case ca.year != cb.year:
		return iYear
	case ca.month != cb.month || ca.monthKey != cb.monthKey:
		return iMonth
	case ca.day != cb.day:
		return iDate
	case (ta.Hour() < 12) != (tb.Hour() < 12):
		return iAmPm
	case ta.Hour()%12 != tb.Hour()%12:
		return iHour
	case ta.Minute() != tb.Minute():
		return iMinute
	case ta.Second() != tb.Second():
		return iSecond
	case (a%1000+1000)%1000 != (b%1000+1000)%1000:
		return iMilli
	}
	return -1
}

// format is DateIntervalFormat::formatImpl; nil when the result is a
// single date (V8 then formats the start with the DateTimeFormat).
func (f *intervalFormat) format(a, b int64, z *zoneInfo) (segs []rseg, firstIndex int) {
	field := f.greatestDiff(a, b, z)
	if field < 0 {
		return nil, -1
	}
	sameDay := field >= iAmPm
	ip := f.ptn[field]
	if ip.first == "" && ip.second == "" {
		if isFieldUnitIgnored(f.fmt, field) {
			return nil, -1
		}
		return f.fallbackFormat(a, b, sameDay, f.fmt, z)
	}
	if ip.first == "" {
		return f.fallbackFormat(a, b, sameDay, ip.second, z)
	}
	x, y, firstIndex := a, b, 0
	if ip.laterFirst {
		x, y, firstIndex = b, a, 1
	}
	segs = f.segs(nil, ip.first, x, z)
	if ip.second != "" {
		segs = f.segs(segs, ip.second, y, z)
	}
	return segs, firstIndex
}

// fallbackFormat is DateIntervalFormat's: a same-day range of a
// date-and-time skeleton is the date once and the time range in the
// date-time glue, else the two dates in intervalFormatFallback.
func (f *intervalFormat) fallbackFormat(a, b int64, sameDay bool, p string, z *zoneInfo) ([]rseg, int) {
	if !(sameDay && f.datePat != "" && f.timePat != "") {
		return f.fallbackFormatRange(nil, a, b, p, z)
	}
	var out []rseg
	firstIndex := 0
	glue := f.glue
	for glue != "" {
		i0, i1 := strings.Index(glue, "{0}"), strings.Index(glue, "{1}")
		next, which := len(glue), -1
		if i0 >= 0 && (i1 < 0 || i0 < i1) {
			next, which = i0, 0
		} else if i1 >= 0 {
			next, which = i1, 1
		}
		if next > 0 {
			out = append(out, rseg{0, glue[:next]})
		}
		switch which {
		case 0:
			out, firstIndex = f.fallbackFormatRange(out, a, b, f.timePat, z)
		case 1:
			out = f.segs(out, f.datePat, a, z)
		default:
			return out, firstIndex
		}
		glue = glue[next+3:]
	}
	return out, firstIndex
}

// fallbackFormatRange is DateIntervalFormat's: a and b with pattern p
// in intervalFormatFallback.
func (f *intervalFormat) fallbackFormatRange(out []rseg, a, b int64, p string, z *zoneInfo) ([]rseg, int) {
	fb := f.fallback
	i0, i1 := strings.Index(fb, "{0}"), strings.Index(fb, "{1}")
	if i0 < 0 || i1 < 0 {
		return f.segs(out, p, a, z), 0
	}
	first, second, firstIndex := a, b, 0
	lo, hi := i0, i1
	if i1 < i0 {
		first, second, firstIndex = b, a, 1
		lo, hi = i1, i0
	}
	if lo > 0 {
		out = append(out, rseg{0, fb[:lo]})
	}
	out = f.segs(out, p, first, z)
	if hi > lo+3 {
		out = append(out, rseg{0, fb[lo+3 : hi]})
	}
	out = f.segs(out, p, second, z)
	if hi+3 < len(fb) {
		out = append(out, rseg{0, fb[hi+3:]})
	}
	return out, firstIndex
}

// formatRange formats [a, b] (epoch ms) as V8's formatRangeToParts: the
// interval's fields, the literal text between them, and each part's
// source from ICU's two spans (the first to the last field that repeats,
// in each half).
func (l *dtfLocale) formatRange(pattern string, a, b int64, z *zoneInfo) []rpart {
	f := l.getIntervalFormat(pattern)
	segs, firstIndex := f.format(a, b, z)
	// FormattedValueFieldPositionIteratorImpl::addOverlapSpans
	type pos struct{ start, limit int }
	var fields []pos
	var chs []byte
	n := 0
	for _, s := range segs {
		if s.ch != 0 {
			fields = append(fields, pos{n, n + len(s.val)})
			chs = append(chs, s.ch)
		}
		n += len(s.val)
	}
	const none = int(^uint(0) >> 1)
	s1a, s1b, s2a, s2b := none, 0, none, 0
	for i := range fields {
		for j := i + 1; j < len(fields); j++ {
			if chs[i] != chs[j] {
				continue
			}
			s1a, s1b = min(s1a, fields[i].start), max(s1b, fields[i].limit)
			s2a, s2b = min(s2a, fields[j].start), max(s2b, fields[j].limit)
			break
		}
	}
	if segs == nil || s1a == none {
		return tagAll(l.formatPattern(f.own, a, z), "shared")
	}
	var span [2]pos
	span[firstIndex] = pos{s1a, s1b}
	span[1-firstIndex] = pos{s2a, s2b}
	source := func(start, limit int) string {
		for i, src := range [2]string{"startRange", "endRange"} {
			sp := span[i]
			if sp.start <= start && start <= sp.limit && sp.start <= limit && limit <= sp.limit {
				return src
			}
		}
		return "shared"
	}
	var out []rpart
	var lit strings.Builder
	litStart := 0
	n = 0
	flush := func() {
		if lit.Len() > 0 {
			out = append(out, rpart{"literal", spaceFix.Replace(lit.String()), source(litStart, n)})
			lit.Reset()
		}
	}
	for _, s := range segs {
		if s.ch == 0 {
			if lit.Len() == 0 {
				litStart = n
			}
			lit.WriteString(s.val)
			n += len(s.val)
			continue
		}
		flush()
		out = append(out, rpart{partType(s.ch), spaceFix.Replace(s.val), source(n, n+len(s.val))})
		n += len(s.val)
	}
	flush()
	return out
}

func tagAll(ps []part, src string) []rpart {
	out := make([]rpart, len(ps))
	for i, p := range ps {
		out[i] = rpart{p.typ, p.val, src}
	}
	return out
}

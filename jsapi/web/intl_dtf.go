package web

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/jsapi/jserr"
	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// DateTimeFormat on CLDR data: patterns from the generator of
// intl_dtpg.go, fields formatted as ICU's SimpleDateFormat does, time
// zone names through CLDR's metazones over Go's tz database.

// dtfLocale is a data locale's date formatting state.
type dtfLocale struct {
	tag      string // the requested tag (language-script-region)
	d        cldr.Data
	lang     string
	region   string // the tag's region, else its likely one
	digits   []rune // nil for latn
	numSys   string
	hourChar byte
	calName  string         // CLDR calendar name ("gregorian", "buddhist"...)
	cal      map[string]any // its data (cldr.Data.Calendar)
	gens     lazyCache[byte, *dtpg]
	key      string // tag|nu|ca, this state's key in dtfLocales

	itvOnce sync.Once
	itv     map[string]*[iCount]string // intervalInfo
}

var dtfLocales lazyCache[string, *dtfLocale]

// getDTFLocale returns the date state of a tag (language, script and
// region; extensions are read by the caller) with numbering system nu
// ("" for the locale's default) and calendar ca (a CLDR name from
// resolveCalendar; "" for Gregorian).
func getDTFLocale(tag, nu, ca string) *dtfLocale {
	key := tag + "|" + nu + "|" + ca
	return dtfLocales.get(key, func() *dtfLocale {
		l := newDTFLocale(tag, nu, ca)
		l.key = key
		return l
	})
}

func newDTFLocale(tag, nu, ca string) *dtfLocale {
	id := cldr.DataLocale(tag)
	d := cldr.Locale(id)
	t := cldr.ParseTag(tag)
	max, _ := cldr.Maximize(t)
	l := &dtfLocale{tag: tag, d: d, lang: max.Lang, region: max.Region}
	if nu == "" {
		nu = d.Str("numbers", "defaultNumberingSystem")
	}
	l.numSys = nu
	l.digits = numberingDigits(nu)
	l.hourChar = preferredHour(max)
	l.calName, l.cal = "gregorian", d.Calendar("gregorian")
	if ca != "" && ca != "gregorian" {
		if c := d.Calendar(ca); c != nil {
			l.calName, l.cal = ca, c
		}
	}
	return l
}

// numberingDigits are the ten digits of a numeric numbering system (nil
// for latn or an unknown one).
func numberingDigits(nu string) []rune {
	if nu == "" || nu == "latn" {
		return nil
	}
	s := cldr.Supplemental().Str("numberingSystems", nu, "_digits")
	if r := []rune(s); len(r) == 10 {
		return r
	}
	return nil
}

// preferredHour is CLDR timeData's preferred hour char for a maximized tag.
func preferredHour(t cldr.Tag) byte {
	td := cldr.Supplemental().Map("timeData")
	for _, k := range []string{t.Lang + "-" + t.Region, t.Region, "001"} {
		if e, ok := td[k].(map[string]any); ok {
			if p, _ := e["_preferred"].(string); p != "" {
				return p[0]
			}
		}
	}
	return 'H'
}

func (l *dtfLocale) gen(hourChar byte) *dtpg {
	return l.gens.get(hourChar, func() *dtpg { return newDTPG(l.d, l.cal, hourChar) })
}

// num writes n with at least width digits in the locale's digits.
func (l *dtfLocale) num(n, width int) string {
	if n >= 0 && n < 100 && width <= 2 && l.digits == nil {
		if width == 2 || n >= 10 {
			return twoDigits[n]
		}
		return twoDigits[n][1:]
	}
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return l.localDigits(s)
}

var twoDigits = func() (t [100]string) {
	for i := range t {
		t[i] = string([]byte{byte('0' + i/10), byte('0' + i%10)})
	}
	return
}()

func (l *dtfLocale) localDigits(s string) string {
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

// greg is a string of the calendar's data.
func (l *dtfLocale) greg(keys ...string) string {
	s, _ := l.calAt(keys...).(string)
	return s
}

// calAt walks the calendar's data along keys (nil when missing).
func (l *dtfLocale) calAt(keys ...string) any {
	var m any = l.cal
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

func widthOf(n int) string {
	switch {
	case n <= 3:
		return "abbreviated"
	case n == 4:
		return "wide"
	case n == 5:
		return "narrow"
	}
	return "short"
}

// zoneInfo is a resolved time zone.
type zoneInfo struct {
	id   string // as resolvedOptions reports it
	cldr string // CLDR's canonical id
	loc  *time.Location
}

var (
	zonesMu sync.Mutex
	zones   = map[string]*zoneInfo{}
)

// resolveZone canonicalizes a time zone name as V8 does (case-insensitive
// IANA names, UTC and its aliases as "UTC").
func resolveZone(name string) (*zoneInfo, error) {
	zonesMu.Lock()
	defer zonesMu.Unlock()
	if z, ok := zones[name]; ok {
		return z, nil
	}
	up := strings.ToUpper(name)
	switch up {
	case "UTC", "ETC/UTC", "ETC/GMT", "GMT", "ETC/UCT", "UCT", "ETC/UNIVERSAL", "UNIVERSAL", "ETC/ZULU", "ZULU", "ETC/GREENWICH", "GREENWICH", "GMT0", "ETC/GMT0", "GMT+0", "GMT-0", "ETC/GMT+0", "ETC/GMT-0":
		z := &zoneInfo{id: "UTC", cldr: "Etc/UTC", loc: time.UTC}
		zones[name] = z
		return z, nil
	}
	if strings.HasPrefix(name, "/") || strings.Contains(name, "..") || name == "" || strings.EqualFold(name, "local") {
		return nil, jserr.RangeError("Invalid time zone specified: " + name)
	}
	canon := cldr.Supplemental().Map("zoneCanonical")
	id := ""
	for k := range canon {
		if strings.EqualFold(k, name) {
			id = k
			break
		}
	}
	if id == "" {
		return nil, jserr.RangeError("Invalid time zone specified: " + name)
	}
	c, _ := canon[id].(string)
	loc, err := time.LoadLocation(id)
	if err != nil {
		if iana := cldr.Supplemental().Str("zoneIANA", c); iana != "" {
			loc, err = time.LoadLocation(iana)
		}
		if err != nil {
			return nil, jserr.RangeError("Invalid time zone specified: " + name)
		}
	}
	z := &zoneInfo{id: id, cldr: c, loc: loc}
	zones[name] = z
	return z, nil
}

// metazone is the CLDR metazone of a zone at t ("" when none).
func metazone(cldrID string, t time.Time) string {
	path := append([]string{"metaZones", "metazoneInfo", "timezone"}, strings.Split(cldrID, "/")...)
	uses := cldr.Supplemental().List(path...)
	stamp := t.UTC().Format("2006-01-02 15:04")
	for _, u := range uses {
		m, _ := u.(map[string]any)["usesMetazone"].(map[string]any)
		from, _ := m["_from"].(string)
		to, _ := m["_to"].(string)
		if from == "" {
			from = "1970-01-01 00:00" // ICU's metaZones.txt starts there
		}
		if stamp >= from && (to == "" || stamp < to) {
			s, _ := m["_mzone"].(string)
			return s
		}
	}
	return ""
}

// goldenZone is the reference zone of a metazone for a region.
func goldenZone(mz, region string) string {
	var world string
	for _, e := range cldr.Supplemental().List("metaZones", "metazones") {
		m, _ := e.(map[string]any)["mapZone"].(map[string]any)
		if m["_other"] != mz {
			continue
		}
		typ, _ := m["_type"].(string)
		switch m["_territory"] {
		case region:
			return typ
		case "001":
			world = typ
		}
	}
	return world
}

func (l *dtfLocale) tzn(keys ...string) string {
	return l.d.Str(append([]string{"timeZoneNames"}, keys...)...)
}

func (l *dtfLocale) zoneName(cldrID string, keys ...string) string {
	return l.tzn(append(append([]string{"zone"}, strings.Split(cldrID, "/")...), keys...)...)
}

// gmt is the localized GMT format of an offset in seconds.
func (l *dtfLocale) gmt(off int, long bool) string {
	return l.gmtZero(off, long, true)
}

// gmtZero is gmt; without zero, offset 0 is written "+0" (as V8 shows
// the UTC zone's offset and generic names).
func (l *dtfLocale) gmtZero(off int, long, zero bool) string {
	if off == 0 && zero {
		return l.tzn("gmtZeroFormat")
	}
	hf := l.tzn("hourFormat")
	pos, neg, _ := strings.Cut(hf, ";")
	p := pos
	if off < 0 {
		p, off = neg, -off
	}
	h, m, s := off/3600, off%3600/60, off%60
	if !long {
		p = strings.Replace(p, "HH", "H", 1)
		if m == 0 && s == 0 {
			// ICU's truncateOffsetPattern: up to the hour field (he
			// "-HH:mm\u200e" → "-H")
			if i := strings.Index(p, "mm"); i > 0 {
				j := i - 1
				for j > 0 && !strings.ContainsRune("Hh", rune(p[j])) {
					j--
				}
				p = p[:j+1]
			}
		}
	} else if !strings.Contains(p, "HH") {
		// ICU's expandOffsetPattern: the long form has two hour digits
		// (cs "+H:mm" → "GMT+01:00")
		p = strings.Replace(p, "H", "HH", 1)
	}
	var sb strings.Builder
	for _, it := range parsePattern(p) {
		switch {
		case !it.field:
			sb.WriteString(it.lit)
		case it.ch == 'H':
			sb.WriteString(l.num(h, it.n))
		case it.ch == 'm':
			sb.WriteString(l.num(m, 2))
			if s != 0 {
				sb.WriteString(":" + l.num(s, 2))
			}
		}
	}
	return strings.Replace(l.tzn("gmtFormat"), "{0}", sb.String(), 1)
}

// observesDST reports whether the zone has DST within 184 days of t (as
// ICU's generic names check).
func observesDST(loc *time.Location, t time.Time) bool {
	for _, d := range []int{-184, -92, 0, 92, 184} {
		if t.AddDate(0, 0, d).In(loc).IsDST() {
			return true
		}
	}
	return false
}

// exemplar is the exemplar city of a zone.
func (l *dtfLocale) exemplar(cldrID string) string {
	if s := l.zoneName(cldrID, "exemplarCity"); s != "" {
		return s
	}
	i := strings.LastIndexByte(cldrID, '/')
	return strings.ReplaceAll(cldrID[i+1:], "_", " ")
}

// zoneCountry is the region of a zone (CLDR's bcp47 time zone keys) and
// whether it is the region's primary zone (its only one, or CLDR's
// primaryZones entry).
func zoneCountry(cldrID string) (string, bool) {
	sup := cldr.Supplemental()
	r := sup.Str("zoneRegion", cldrID)
	if r == "" {
		return "", false
	}
	if p := sup.Str("primaryZones", r); p != "" {
		return r, p == cldrID
	}
	return r, len(regionZones(r)) == 1
}

var (
	regionZonesOnce sync.Once
	regionZonesMap  map[string][]string
)

// regionZones lists a region's zones (CLDR ids, sorted).
func regionZones(region string) []string {
	regionZonesOnce.Do(func() {
		regionZonesMap = map[string][]string{}
		for id, r := range cldr.Supplemental().Map("zoneRegion") {
			rs := r.(string)
			regionZonesMap[rs] = append(regionZonesMap[rs], id)
		}
		for _, l := range regionZonesMap {
			sort.Strings(l)
		}
	})
	return regionZonesMap[region]
}

// genericCity is the city of a generic location name ("{0} Time"): the
// zone id's ("Sao Paulo", "New York"), not the locale's exemplar city.
// workerd (ICU 78) writes the id's city in every locale the probe has
// ("17時 Sao Paulo時間", "17 ч. Sydney", "12 h hora de Sydney", en "Sao
// Paulo Time"), though CLDR 48 translates them.
func genericCity(cldrID string) string {
	i := strings.LastIndexByte(cldrID, '/')
	return strings.ReplaceAll(cldrID[i+1:], "_", " ")
}

// locationName is ICU's generic location name ("{0} Time").
func (l *dtfLocale) locationName(cldrID string) string {
	loc := ""
	if c, primary := zoneCountry(cldrID); c != "" && primary {
		loc = l.d.Str("localeDisplayNames", "territories", c)
	}
	if loc == "" {
		loc = genericCity(cldrID)
	}
	return strings.Replace(l.tzn("regionFormat"), "{0}", loc, 1)
}

// offsetAtWall is loc's offset at the wall-clock time wall (seconds since
// the epoch as if that clock were UTC), as ICU's TimeZone::getOffset with
// local=true answers it (tzgnames.cpp compares the golden zone's offset at
// the formatted zone's wall time): in an overlap the later instant (ICU's
// kLatter), in a gap the offset from before it (kFormer).
func offsetAtWall(loc *time.Location, wall int64) (int, bool) {
	_, before := time.Unix(wall-86400, 0).In(loc).Zone()
	_, after := time.Unix(wall+86400, 0).In(loc).Zone()
	var best *time.Time
	for _, o := range []int{before, after} {
		t := time.Unix(wall-int64(o), 0).In(loc)
		if _, got := t.Zone(); got == o && (best == nil || t.After(*best)) {
			best = &t
		}
	}
	if best == nil {
		t := time.Unix(wall-86400, 0).In(loc)
		best = &t
	}
	_, o := best.Zone()
	return o, best.IsDST()
}

// zoneText formats a zone field (z, v, O, ...) at t.
func (l *dtfLocale) zoneText(ch byte, n int, z *zoneInfo, t time.Time) string {
	lt := t.In(z.loc)
	_, off := lt.Zone()
	dst := lt.IsDST()
	long := n >= 4
	lenKey := "short"
	if long {
		lenKey = "long"
	}
	kind := "standard"
	if dst {
		kind = "daylight"
	}
	switch ch {
	case 'z':
		if s := l.zoneName(z.cldr, lenKey, kind); s != "" {
			return s
		}
		if mz := metazone(z.cldr, t); mz != "" {
			if s := l.tzn("metazone", mz, lenKey, kind); s != "" {
				return s
			}
		}
		return l.gmt(off, long)
	case 'v':
		if s := l.zoneName(z.cldr, lenKey, "generic"); s != "" {
			return s
		}
		if mz := metazone(z.cldr, t); mz != "" {
			if !dst && !observesDST(z.loc, t) {
				if s := l.tzn("metazone", mz, lenKey, "standard"); s != "" && !strings.EqualFold(s, l.tzn("metazone", mz, lenKey, "generic")) {
					return s
				}
			}
			if g := l.tzn("metazone", mz, lenKey, "generic"); g != "" {
				golden := goldenZone(mz, l.region)
				if golden != "" && golden != z.cldr {
					if gl, err := time.LoadLocation(cldr.Supplemental().Str("zoneIANA", golden)); err == nil {
						goff, gdst := offsetAtWall(gl, t.Unix()+int64(off))
						if goff != off || gdst != dst {
							loc := genericCity(z.cldr)
							if c, _ := zoneCountry(z.cldr); c != "" && goldenZone(mz, c) == z.cldr {
								loc = l.d.Str("localeDisplayNames", "territories", c)
							}
							return strings.NewReplacer("{0}", loc, "{1}", g).Replace(l.tzn("fallbackFormat"))
						}
					}
				}
				return g
			}
		}
		if z.cldr == "Etc/UTC" {
			return l.gmtZero(off, long, false)
		}
		return l.locationName(z.cldr)
	case 'O':
		return l.gmtZero(off, long, z.cldr != "Etc/UTC")
	}
	return l.gmt(off, true)
}

// dayPeriodText formats a (a, b or B).
func (l *dtfLocale) dayPeriodText(ch byte, n int, t time.Time, hasMin, hasSec bool) string {
	w := widthOf(n)
	if n > 5 {
		w = "wide"
	}
	h := t.Hour()
	ap := "am"
	if h >= 12 {
		ap = "pm"
	}
	if ch == 'a' {
		// ICU 78's SimpleDateFormat: a..aaa the abbreviated names
		// (AmPmMarkersAbbr), aaaa the wide, aaaaa the narrow (in workerd's
		// ICU data th has wide "ก่อนเที่ยง" but abbreviated "AM", and
		// workerd writes "AM"); widthOf gives exactly that
		return l.greg("dayPeriods", "format", w, ap)
	}
	min, sec := 0, 0
	if hasMin {
		min = t.Minute()
	}
	if hasSec {
		sec = t.Second()
	}
	rules := cldr.Supplemental().Map("dayPeriods", l.lang)
	if rules == nil {
		return l.greg("dayPeriods", "format", w, ap)
	}
	if min == 0 && sec == 0 {
		if h == 12 && rules["noon"] != nil {
			if s := l.greg("dayPeriods", "format", w, "noon"); s != "" {
				return s
			}
		}
	}
	if ch == 'b' {
		return l.greg("dayPeriods", "format", w, ap)
	}
	for name, r := range rules {
		m, _ := r.(map[string]any)
		from, _ := m["_from"].(string)
		before, _ := m["_before"].(string)
		if from == "" || before == "" {
			continue
		}
		fh, _ := strconv.Atoi(strings.Split(from, ":")[0])
		bh, _ := strconv.Atoi(strings.Split(before, ":")[0])
		in := fh <= bh && h >= fh && h < bh || fh > bh && (h >= fh || h < bh)
		if in {
			if s := l.greg("dayPeriods", "format", w, name); s != "" {
				return s
			}
		}
	}
	return l.greg("dayPeriods", "format", w, ap)
}

// partType is formatToParts' type of a pattern field.
func partType(ch byte) string {
	switch ch {
	case 'G':
		return "era"
	case 'y', 'Y', 'u':
		return "year"
	case 'U':
		return "yearName"
	case 'r':
		return "relatedYear"
	case 'M', 'L':
		return "month"
	case 'd':
		return "day"
	case 'E', 'c', 'e':
		return "weekday"
	case 'a', 'b', 'B':
		return "dayPeriod"
	case 'h', 'H', 'k', 'K':
		return "hour"
	case 'm':
		return "minute"
	case 's':
		return "second"
	case 'S':
		return "fractionalSecond"
	case 'z', 'Z', 'v', 'V', 'O', 'X', 'x':
		return "timeZoneName"
	case 'Q', 'q':
		return "quarter"
	}
	return "literal"
}

var spaceFix = strings.NewReplacer("\u202f", " ", "\u2009", " ")

// hasMinSec says whether a pattern shows minutes and seconds (a day
// period's text depends on it).
func hasMinSec(items []patItem) (hasMin, hasSec bool) {
	for _, it := range items {
		if it.field && it.ch == 'm' {
			hasMin = true
		}
		if it.field && it.ch == 's' {
			hasSec = true
		}
	}
	return
}

// formatPattern formats ms (epoch milliseconds) in zone z with pattern.
func (l *dtfLocale) formatPattern(items []patItem, ms int64, z *zoneInfo) []part {
	t := time.UnixMilli(ms).In(z.loc)
	hasMin, hasSec := hasMinSec(items)
	cd := calendarDate(l.calName, t)
	var out []part
	for _, it := range items {
		if !it.field {
			if len(out) > 0 && out[len(out)-1].typ == "literal" {
				out[len(out)-1].val += it.lit
			} else {
				out = append(out, part{"literal", it.lit})
			}
			continue
		}
		out = append(out, part{partType(it.ch), l.fieldText(it, t, ms, z, hasMin, hasSec, &cd)})
	}
	// V8 writes U+202F (CLDR 42's space before AM/PM) and U+2009 (the
	// thin spaces of interval formats) as plain spaces, for the web's
	// sake (crbug.com/1414292)
	for i := range out {
		if strings.ContainsAny(out[i].val, "\u202f\u2009") {
			out[i].val = spaceFix.Replace(out[i].val)
		}
	}
	return out
}

func (l *dtfLocale) fieldText(it patItem, t time.Time, ms int64, z *zoneInfo, hasMin, hasSec bool, cd *calDate) string {
	n := it.n
	switch it.ch {
	case 'G':
		key := "eraAbbr"
		if n == 4 {
			key = "eraNames"
		} else if n == 5 {
			key = "eraNarrow"
		}
		return l.greg("eras", key, strconv.Itoa(cd.era))
	case 'y', 'Y', 'u':
		y := cd.year
		if it.ch != 'y' && l.calName == "gregorian" {
			y = t.Year()
		}
		if n == 2 {
			return l.num(((y%100)+100)%100, 2)
		}
		return l.num(y, n)
	case 'M', 'L':
		if n <= 2 {
			return l.num(cd.month, n)
		}
		ctx := "format"
		if it.ch == 'L' {
			ctx = "stand-alone"
		}
		return l.greg("months", ctx, widthOf(n), cd.monthKey)
	case 'd':
		return l.num(cd.day, n)
	case 'E', 'c', 'e':
		ctx := "format"
		if it.ch == 'c' {
			ctx = "stand-alone"
		}
		if it.ch != 'E' && n <= 2 {
			return l.num(int(t.Weekday())+1, n)
		}
		w := widthOf(n)
		return l.greg("days", ctx, w, [...]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}[t.Weekday()])
	case 'a', 'b', 'B':
		return l.dayPeriodText(it.ch, n, t, hasMin, hasSec)
	case 'h':
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return l.num(h, n)
	case 'H':
		return l.num(t.Hour(), n)
	case 'K':
		return l.num(t.Hour()%12, n)
	case 'k':
		h := t.Hour()
		if h == 0 {
			h = 24
		}
		return l.num(h, n)
	case 'm':
		return l.num(t.Minute(), n)
	case 's':
		return l.num(t.Second(), n)
	case 'S':
		f := strconv.Itoa(1000 + int(((ms%1000)+1000)%1000))[1:] + "000000"
		return l.localDigits(f[:n])
	case 'Q', 'q':
		q := cd.quarter
		if n <= 2 {
			return l.num(q, n)
		}
		ctx := "format"
		if it.ch == 'q' {
			ctx = "stand-alone"
		}
		return l.greg("quarters", ctx, widthOf(n), strconv.Itoa(q))
	case 'z', 'v', 'O', 'Z', 'V', 'X', 'x':
		return l.zoneText(it.ch, n, z, t)
	}
	return ""
}

// calMap is a map of the calendar's data (nil when missing).
func (l *dtfLocale) calMap(keys ...string) map[string]any {
	m, _ := l.calAt(keys...).(map[string]any)
	return m
}

// formatString is formatPattern's parts joined (format's path, without
// the parts).
func (l *dtfLocale) formatString(items []patItem, ms int64, z *zoneInfo) string {
	t := time.UnixMilli(ms).In(z.loc)
	hasMin, hasSec := hasMinSec(items)
	cd := calendarDate(l.calName, t)
	var sb strings.Builder
	sb.Grow(32)
	for _, it := range items {
		if !it.field {
			sb.WriteString(it.lit)
			continue
		}
		sb.WriteString(l.fieldText(it, t, ms, z, hasMin, hasSec, &cd))
	}
	s := sb.String()
	if strings.ContainsAny(s, "\u202f\u2009") {
		s = spaceFix.Replace(s)
	}
	return s
}

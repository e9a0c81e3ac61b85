package web

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// Calendars other than the Gregorian one, for DateTimeFormat's calendar
// option, -u-ca- and the locales whose region prefers one (CLDR's
// calendarPreferenceData: TH buddhist, IR and AF persian).
//
// Hand-written: Go has no maintained calendar library (x/text has none),
// so the arithmetic is written here from the published algorithms and
// pinned against values recorded on workerd (TestIntlCalendars,
// testdata/intl-calendars.json):
//   - buddhist, roc, japanese: Gregorian years shifted by an era offset
//     (Japanese eras from Meiji on, the start dates ICU uses);
//   - persian: the 33-year arithmetic rule (leap when (8y+29) mod 33 < 8),
//     as ICU's PersianCalendar computes it;
//   - islamic-civil / islamic-tbla: the 30-year tabular Islamic calendar
//     (leap years 2, 5, 7, 10, 13, 16, 18, 21, 24, 26, 29), epoch
//     Friday / Thursday 622-07-16/15 (Julian);
//   - hebrew: the arithmetic of Reingold & Dershowitz, Calendrical
//     Calculations, ch. 8 (molad, dehiyyot, year lengths);
//   - indian: the Indian national (Saka) calendar, year from 22 March
//     (21 in Gregorian leap years);
//   - islamic-umalqura: the Umm al-Qura month table (ummAlQuraFromJDN).
//
// Not implemented (they resolve to "gregory", as if ICU lacked them):
// islamic (astronomical), islamic-rgsa, chinese and dangi (astronomical
// new moons and solar terms), coptic, ethiopic, ethioaa.

// implementedCalendars maps a BCP 47 calendar (and its aliases) to CLDR's name.
var implementedCalendars = map[string]string{
	"gregory": "gregorian", "buddhist": "buddhist", "japanese": "japanese", "roc": "roc",
	"persian": "persian", "indian": "indian", "hebrew": "hebrew",
	"islamic-civil": "islamic-civil", "islamicc": "islamic-civil", "islamic-tbla": "islamic-tbla",
	"islamic-umalqura": "islamic-umalqura",
}

// bcp47Calendar is the BCP 47 name of a CLDR calendar name.
func bcp47Calendar(c string) string {
	if c == "gregorian" || c == "" {
		return "gregory"
	}
	return c
}

// resolveCalendar is the calendar (CLDR name) a DateTimeFormat of tag
// uses: the requested one (option or -u-ca-, "" for none) when
// implemented, else the first of the region's preferred calendars,
// else Gregorian.
func resolveCalendar(tag, req string) string {
	if c, ok := implementedCalendars[strings.ToLower(req)]; ok {
		return c
	}
	return regionCalendars.get(tag, func() string { return regionCalendar(tag) })
}

// regionCalendars keeps regionCalendar per tag (each DateTimeFormat asks).
var regionCalendars = boundedCache[string, string]{max: 4096}

func regionCalendar(tag string) string {
	max, _ := cldr.Maximize(cldr.ParseTag(tag))
	cp := cldr.Supplemental().Map("calendarPreferenceData")
	l, _ := cp[max.Region].([]any)
	if len(l) > 0 {
		if s, _ := l[0].(string); s != "" {
			if _, ok := implementedCalendars[s]; ok || s == "gregorian" {
				return s
			}
		}
	}
	return "gregorian"
}

// calDate is a date in a calendar, as the pattern fields read it.
type calDate struct {
	era      int    // CLDR era index
	year     int    // year in era
	month    int    // numeric month (M, MM)
	monthKey string // CLDR month key (MMM...)
	day      int
	quarter  int
}

// jdn is the Julian day number of a (proleptic Gregorian) civil date.
func jdn(y int, m time.Month, d int) int {
	return floorDiv(int(time.Date(y, m, d, 12, 0, 0, 0, time.UTC).Unix()), 86400) + 2440588
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

type japaneseEra struct {
	index   int
	y, m, d int
}

var (
	japaneseErasOnce sync.Once
	japaneseEras     []japaneseEra // newest first
)

// japaneseErasFrom232 are the eras from Meiji (CLDR's 232) on, with the
// start dates of CLDR's calendarData (which ICU reads).
func japaneseErasFrom232() []japaneseEra {
	japaneseErasOnce.Do(func() {
		for k, v := range cldr.Supplemental().Map("calendarData", "japanese", "eras") {
			i, _ := strconv.Atoi(k)
			start, _ := v.(map[string]any)["_start"].(string)
			var e japaneseEra
			if _, err := fmt.Sscanf(start, "%d-%d-%d", &e.y, &e.m, &e.d); i >= 232 && err == nil {
				e.index = i
				japaneseEras = append(japaneseEras, e)
			}
		}
		sort.Slice(japaneseEras, func(a, b int) bool { return japaneseEras[a].index > japaneseEras[b].index })
	})
	return japaneseEras
}

// calendarDate converts the wall date of t to calendar cal (CLDR name).
func calendarDate(cal string, t time.Time) calDate {
	y, mo, d := t.Date()
	m := int(mo)
	c := calDate{era: 1, year: y, month: m, day: d}
	switch cal {
	case "buddhist":
		c.era, c.year = 0, y+543
	case "roc":
		if y > 1911 {
			c.era, c.year = 1, y-1911
		} else {
			c.era, c.year = 0, 1912-y
		}
	case "japanese":
		c.era, c.year = 232, y-1867 // before Meiji: Meiji's count (see trimJapaneseEras)
		for _, e := range japaneseErasFrom232() {
			if y > e.y || y == e.y && (m > e.m || m == e.m && d >= e.d) {
				c.era, c.year = e.index, y-e.y+1
				break
			}
		}
	case "persian":
		c.era = 0
		c.year, c.month, c.day = persianFromJDN(jdn(y, mo, d))
	case "islamic-civil":
		c.era = 0
		c.year, c.month, c.day = tabularIslamicFromJDN(jdn(y, mo, d), 1948440)
	case "islamic-tbla":
		c.era = 0
		c.year, c.month, c.day = tabularIslamicFromJDN(jdn(y, mo, d), 1948439)
	case "islamic-umalqura":
		c.era = 0
		c.year, c.month, c.day = ummAlQuraFromJDN(jdn(y, mo, d))
	case "indian":
		c.era = 0
		c.year, c.month, c.day = indianFromJDN(jdn(y, mo, d), y)
	case "hebrew":
		c.era = 0
		var hm int
		c.year, hm, c.day = hebrewFromRD(jdn(y, mo, d) - 1721425)
		c.month, c.monthKey = hebrewMonth(hm, c.year)
	default: // gregorian
		if y <= 0 {
			c.era, c.year = 0, 1-y
		}
	}
	if c.monthKey == "" {
		c.monthKey = strconv.Itoa(c.month)
	}
	c.quarter = (c.month-1)/3 + 1
	if c.quarter > 4 {
		c.quarter = 4
	}
	return c
}

// persianFromJDN: the Persian year of 365 or 366 days starts in a 33-year
// cycle with 8 leap years; day 0 is 1 Farvardin 1 (JDN 1948321). ICU 78
// moves the leap year of a few cycles after 1500 AP by one year (the
// astronomical calendar's), so those years start a day earlier: the years
// are the ones workerd gives between 1800 and 2300 AD
// (persianEarlyStart, pinned by TestIntlCalendars).
func persianFromJDN(j int) (y, m, d int) {
	days := j - 1948320 // days since the epoch's eve
	y = 1 + floorDiv(33*days+3, 12053)
	for days < persianStart(y) {
		y--
	}
	for days >= persianStart(y+1) {
		y++
	}
	doy := days - persianStart(y) // 0-based day of year
	if doy < 186 {
		return y, doy/31 + 1, doy%31 + 1
	}
	doy -= 186
	return y, doy/30 + 7, doy%30 + 1
}

var persianEarlyStart = map[int]bool{1503: true, 1602: true, 1635: true, 1668: true}

// persianStart is 1 Farvardin of year y, counted as persianFromJDN's days.
func persianStart(y int) int {
	s := 365*(y-1) + floorDiv(8*y+21, 33)
	if persianEarlyStart[y] {
		s--
	}
	return s
}

// tabularIslamicFromJDN: 30-year cycles of 10 631 days, 11 leap years;
// months alternately 30 and 29 days (Dhu al-Hijja 30 in a leap year).
func tabularIslamicFromJDN(j, epoch int) (y, m, d int) {
	days := j - epoch
	y = floorDiv(30*days+10646, 10631)
	yearStart := func(y int) int { return (y-1)*354 + floorDiv(3+11*y, 30) }
	doy := days - yearStart(y)
	// month k (0-based) starts on day ceil(29.5 k)
	m = 0
	for k := 11; k >= 0; k-- {
		if doy >= (59*k+1)/2 {
			m = k
			break
		}
	}
	return y, m + 1, doy - (59*m+1)/2 + 1
}

// ummAlQuraFromJDN: inside ICU's Umm al-Qura table (1300-1600 AH,
// 1882-2174; cldr.UmmAlQura) the month whose start is the last at or
// before j; outside it the tabular civil calendar, as ICU does beyond its
// table. ICU's table is its own data, published on no registry, so
// cldr/record-umalqura.sh records it from ICU in workerd (go generate);
// TestIntlCalendars compares every sampled date from 1868 to 2200.
func ummAlQuraFromJDN(j int) (y, m, d int) {
	first, starts := cldr.UmmAlQura()
	if len(starts) < 2 || j < starts[0] || j >= starts[len(starts)-1] {
		return tabularIslamicFromJDN(j, 1948440)
	}
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > j }) - 1
	mi := first + i
	return mi/12 + 1, mi%12 + 1, j - starts[i] + 1
}

// indianFromJDN: Saka year = Gregorian year - 78 from 1 Chaitra (22 March,
// 21 in a Gregorian leap year); Chaitra has 30 days (31 in a leap year),
// the next five months 31, the last six 30.
func indianFromJDN(j, gy int) (y, m, d int) {
	leap := func(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }
	start := func(gy int) int {
		if leap(gy) {
			return jdn(gy, 3, 21)
		}
		return jdn(gy, 3, 22)
	}
	s := start(gy)
	if j < s {
		gy--
		s = start(gy)
	}
	y = gy - 78
	doy := j - s
	chaitra := 30
	if leap(gy) {
		chaitra = 31
	}
	if doy < chaitra {
		return y, 1, doy + 1
	}
	doy -= chaitra
	if doy < 5*31 {
		return y, doy/31 + 2, doy%31 + 1
	}
	doy -= 5 * 31
	return y, doy/30 + 7, doy%30 + 1
}

// Hebrew calendar (Reingold & Dershowitz). Months as they number them:
// Nisan 1 ... Elul 6, Tishri 7 ... Adar 12, Adar II 13 (leap years).
const hebrewEpochRD = -1373427 // R.D. of 1 Tishri AM 1

func hebrewLeap(y int) bool { return ((7*y+1)%19+19)%19 < 7 }

func hebrewElapsedDays(y int) int {
	months := floorDiv(235*y-234, 19)
	parts := 12084 + 13753*months
	day := 29*months + floorDiv(parts, 25920)
	if ((3*(day+1))%7+7)%7 < 3 {
		day++
	}
	return day
}

func hebrewNewYear(y int) int {
	ny0, ny1, ny2 := hebrewElapsedDays(y-1), hebrewElapsedDays(y), hebrewElapsedDays(y+1)
	corr := 0
	if ny2-ny1 == 356 {
		corr = 2
	} else if ny1-ny0 == 382 {
		corr = 1
	}
	return hebrewEpochRD + ny1 + corr
}

func hebrewMonthDays(m, y int) int {
	yl := hebrewNewYear(y+1) - hebrewNewYear(y)
	switch {
	case m == 2 || m == 4 || m == 6 || m == 10 || m == 13:
		return 29
	case m == 12 && !hebrewLeap(y):
		return 29
	case m == 8 && yl%10 != 5: // Heshvan is long only in a complete year
		return 29
	case m == 9 && yl%10 == 3: // Kislev is short in a deficient year
		return 29
	}
	return 30
}

func hebrewLastMonth(y int) int {
	if hebrewLeap(y) {
		return 13
	}
	return 12
}

// hebrewRD is the R.D. of day d of month m of year y.
func hebrewRD(y, m, d int) int {
	rd := hebrewNewYear(y) + d - 1
	if m < 7 {
		for k := 7; k <= hebrewLastMonth(y); k++ {
			rd += hebrewMonthDays(k, y)
		}
		for k := 1; k < m; k++ {
			rd += hebrewMonthDays(k, y)
		}
	} else {
		for k := 7; k < m; k++ {
			rd += hebrewMonthDays(k, y)
		}
	}
	return rd
}

func hebrewFromRD(rd int) (y, m, d int) {
	approx := int(float64(rd-hebrewEpochRD)/(35975351.0/98496.0)) + 1
	y = approx - 1
	for hebrewNewYear(y+1) <= rd {
		y++
	}
	m = 7
	if rd < hebrewRD(y, 1, 1) {
		m = 7
	} else {
		m = 1
	}
	for rd > hebrewRD(y, m, hebrewMonthDays(m, y)) {
		m++
		if m > hebrewLastMonth(y) {
			m = 1
		}
	}
	return y, m, rd - hebrewRD(y, m, 1) + 1
}

// hebrewMonth is ICU's numeric month and CLDR's month key of a month as
// Reingold & Dershowitz number it: ICU counts from Tishri (1) with Adar I
// 6 and Adar (Adar II) 7, and writes Adar of a common year as 6; CLDR
// names Adar II "7-yeartype-leap".
func hebrewMonth(rdMonth, y int) (int, string) {
	var icu int // ICU's 0-based month: Tishri 0 ... Adar I 5, Adar 6, Nisan 7 ... Elul 12
	leap := hebrewLeap(y)
	switch {
	case rdMonth >= 7 && rdMonth <= 11:
		icu = rdMonth - 7
	case rdMonth == 12:
		icu = 6
		if leap {
			icu = 5
		}
	case rdMonth == 13:
		icu = 6
	default:
		icu = rdMonth + 6
	}
	key := strconv.Itoa(icu + 1)
	if leap && icu == 6 {
		key = "7-yeartype-leap"
	}
	num := icu + 1
	if !leap && icu >= 6 {
		num--
	}
	return num, key
}

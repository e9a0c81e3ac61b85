package web

import (
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // Intl.DateTimeFormat's time zones on machines without zoneinfo

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// dateOpts are a DateTimeFormat's resolved options that formatting reads.
type dateOpts struct {
	Locale       string
	TimeZone     string
	Weekday      string
	Era          string
	Year         string
	Month        string
	Day          string
	Hour         string
	Minute       string
	Second       string
	FracDigits   int
	TimeZoneName string
	Hour12       bool
	DateStyle    string
	TimeStyle    string
}

type dateNames struct {
	months, monthsShort, days, daysShort []string
	am, pm                               string
}

var enNames = dateNames{
	months:      []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	monthsShort: []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
	days:        []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"},
	daysShort:   []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"},
	am:          "AM", pm: "PM",
}

var localeNames = map[string]dateNames{
	"en": enNames,
	"de": {
		months:      []string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
		monthsShort: []string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."},
		days:        []string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"},
		daysShort:   []string{"So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."},
		am:          "AM", pm: "PM",
	},
	"fr": {
		months:      []string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
		monthsShort: []string{"janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."},
		days:        []string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"},
		daysShort:   []string{"dim.", "lun.", "mar.", "mer.", "jeu.", "ven.", "sam."},
		am:          "AM", pm: "PM",
	},
	"es": {
		months:      []string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
		monthsShort: []string{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"},
		days:        []string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"},
		daysShort:   []string{"dom", "lun", "mar", "mié", "jue", "vie", "sáb"},
		am:          "a.\u00a0m.", pm: "p.\u00a0m.",
	},
	"it": {
		months:      []string{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
		monthsShort: []string{"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"},
		days:        []string{"domenica", "lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato"},
		daysShort:   []string{"dom", "lun", "mar", "mer", "gio", "ven", "sab"},
		am:          "AM", pm: "PM",
	},
	"pt": {
		months:      []string{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
		monthsShort: []string{"jan.", "fev.", "mar.", "abr.", "mai.", "jun.", "jul.", "ago.", "set.", "out.", "nov.", "dez."},
		days:        []string{"domingo", "segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado"},
		daysShort:   []string{"dom.", "seg.", "ter.", "qua.", "qui.", "sex.", "sáb."},
		am:          "AM", pm: "PM",
	},
	"nl": {
		months:      []string{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
		monthsShort: []string{"jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"},
		days:        []string{"zondag", "maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag"},
		daysShort:   []string{"zo", "ma", "di", "wo", "do", "vr", "za"},
		am:          "a.m.", pm: "p.m.",
	},
	"ja": {
		days:      []string{"日曜日", "月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日"},
		daysShort: []string{"日", "月", "火", "水", "木", "金", "土"},
		am:        "午前", pm: "午後",
	},
}

// shortEras are CLDR's abbreviated "AD" (a numeric date with an era
// also pads day and month in de, and uses slashes in nl).
var shortEras = map[string]string{"de": "n. Chr.", "fr": "ap. J.-C.", "es": "d. C.", "it": "d.C.", "pt": "d.C.", "nl": "n.Chr."}

// tzName is the short or long name ICU gives a zone at t in en.
func tzName(t time.Time, loc *time.Location, style, lang string) string {
	abbr, off := t.In(loc).Zone()
	if style == "shortOffset" || style == "longOffset" {
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		h, m := off/3600, off%3600/60
		if style == "longOffset" {
			if off == 0 {
				return "GMT"
			}
			return "GMT" + sign + pad2(h) + ":" + pad2(m)
		}
		s := "GMT" + sign + strconv.Itoa(h)
		if m != 0 {
			s += ":" + pad2(m)
		}
		return s
	}
	if loc == time.UTC || abbr == "UTC" {
		if style == "long" {
			switch lang {
			case "de":
				return "Koordinierte Weltzeit"
			case "fr":
				return "temps universel coordonné"
			case "es":
				return "tiempo universal coordinado"
			case "ja":
				return "協定世界時"
			}
			return "Coordinated Universal Time"
		}
		return "UTC"
	}
	long := map[string]string{"EST": "Eastern Standard Time", "EDT": "Eastern Daylight Time", "CST": "Central Standard Time", "CDT": "Central Daylight Time",
		"MST": "Mountain Standard Time", "MDT": "Mountain Daylight Time", "PST": "Pacific Standard Time", "PDT": "Pacific Daylight Time"}
	if l, ok := long[abbr]; ok {
		if style == "long" {
			return l
		}
		return abbr
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := "GMT" + sign + strconv.Itoa(off/3600)
	if m := off % 3600 / 60; m != 0 {
		s += ":" + pad2(m)
	}
	if off == 0 {
		s = "GMT"
	}
	if style == "long" && off != 0 {
		return s
	}
	return s
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// dateBuilder accumulates parts.
type dateBuilder struct{ parts []part }

func (b *dateBuilder) add(typ, val string) { b.parts = append(b.parts, part{typ, val}) }
func (b *dateBuilder) lit(s string) {
	if s != "" {
		b.add("literal", s)
	}
}

// formatDate formats ms (epoch milliseconds) as Intl.DateTimeFormat with o.
func formatDate(ms float64, o dateOpts) ([]part, error) {
	loc, err := loadZone(o.TimeZone)
	if err != nil {
		return nil, err
	}
	t := time.UnixMilli(int64(ms)).In(loc)
	_, lang := localeData(o.Locale)
	if _, ok := localeNames[lang]; !ok {
		lang = "en"
	}
	names := localeNames[lang]
	b := &dateBuilder{}
	region := ""
	if _, r, ok := strings.Cut(o.Locale, "-"); ok {
		region = r
	}
	if o.DateStyle != "" || o.TimeStyle != "" {
		styled(b, t, o, lang, region, names, loc)
		return b.parts, nil
	}
	hasDate := o.Weekday != "" || o.Year != "" || o.Month != "" || o.Day != "" || o.Era != ""
	hasTime := o.Hour != "" || o.Minute != "" || o.Second != "" || o.FracDigits > 0
	if hasDate {
		datePart(b, t, o, lang, region, names)
		if o.Era != "" && lang == "en" {
			b.lit(" ")
			era := "AD"
			if t.Year() <= 0 {
				era = "BC"
			}
			if o.Era == "long" {
				era = map[string]string{"AD": "Anno Domini", "BC": "Before Christ"}[era]
			} else if o.Era == "narrow" {
				era = era[:1]
			}
			b.add("era", era)
		} else if e, ok := shortEras[lang]; ok && o.Era == "short" && t.Year() > 0 {
			b.lit(" ")
			b.add("era", e)
		}
	}
	if hasTime {
		if hasDate {
			switch {
			case lang == "ja":
				b.lit(" ")
			case lang == "en" && o.Weekday != "" && o.Year == "" && o.Month == "" && o.Day == "":
				b.lit(" ")
			default:
				b.lit(", ")
			}
		}
		timePart(b, t, o, lang, names)
	}
	if o.TimeZoneName != "" {
		if hasTime {
			b.lit(" ")
		} else {
			b.lit(", ")
		}
		b.add("timeZoneName", tzName(t, loc, o.TimeZoneName, lang))
	}
	return b.parts, nil
}

func loadZone(name string) (*time.Location, error) {
	if name == "" || strings.EqualFold(name, "UTC") || strings.EqualFold(name, "Etc/UTC") || strings.EqualFold(name, "GMT") {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || strings.HasPrefix(name, "/") || name == "Local" {
		return nil, jserr.RangeError("Invalid time zone specified: " + name)
	}
	return loc, nil
}

func numeric(n int, style string) string {
	if style == "2-digit" {
		return pad2(n % 100)
	}
	return strconv.Itoa(n)
}

func monthText(t time.Time, style string, names dateNames) string {
	m := int(t.Month()) - 1
	switch style {
	case "long":
		return names.months[m]
	case "short":
		return names.monthsShort[m]
	case "narrow":
		return strings.ToUpper(string([]rune(names.months[m])[:1]))
	}
	return ""
}

func weekdayText(t time.Time, style string, names dateNames) string {
	d := int(t.Weekday())
	switch style {
	case "long":
		return names.days[d]
	case "narrow":
		if names.days[d] == "miércoles" {
			return "X"
		}
		return strings.ToUpper(string([]rune(names.days[d])[:1]))
	}
	return names.daysShort[d]
}

// datePart writes the date components in the locale's order.
func datePart(b *dateBuilder, t time.Time, o dateOpts, lang, region string, names dateNames) {
	textMonth := o.Month == "long" || o.Month == "short" || o.Month == "narrow"
	if lang == "ja" {
		if o.Era == "short" && t.Year() > 0 {
			b.add("era", "西暦")
		}
		if o.Year != "" {
			b.add("year", numeric(t.Year(), o.Year))
			b.lit(map[bool]string{true: "年", false: "/"}[textMonth || o.Month == ""])
		}
		if o.Month != "" {
			b.add("month", numeric(int(t.Month()), o.Month))
			if textMonth {
				b.lit("月")
			} else if o.Day != "" {
				b.lit("/")
			}
		}
		if o.Day != "" {
			b.add("day", numeric(t.Day(), o.Day))
			if textMonth {
				b.lit("日")
			}
		}
		if o.Weekday != "" {
			if (o.Year != "" || o.Month != "" || o.Day != "") && o.Weekday != "long" {
				b.lit("(")
				b.add("weekday", weekdayText(t, o.Weekday, names))
				b.lit(")")
			} else {
				b.add("weekday", weekdayText(t, o.Weekday, names))
			}
		}
		return
	}
	if o.Weekday != "" {
		b.add("weekday", weekdayText(t, o.Weekday, names))
		if o.Year != "" || o.Month != "" || o.Day != "" {
			if lang == "fr" || lang == "it" || lang == "nl" {
				b.lit(" ")
			} else {
				b.lit(", ")
			}
		}
	}
	if !textMonth {
		// numeric: en-US M/d/y; en-GB, fr, es, de d/M/y with their separators
		type comp struct{ typ, val string }
		var cs []comp
		sep := "/"
		dayFirst := lang != "en" || region == "GB" || region == "IN" || region == "AU"
		if lang == "de" {
			sep = "."
		}
		if lang == "nl" {
			sep = "-"
			if o.Era != "" {
				sep = "/"
			}
		}
		y, m, d := comp{"year", ""}, comp{"month", ""}, comp{"day", ""}
		if o.Year != "" {
			y.val = numeric(t.Year(), o.Year)
		}
		if o.Month != "" {
			ms := o.Month
			if lang == "fr" || lang == "it" || lang == "pt" || lang == "en" && region == "GB" || lang == "de" && o.Era != "" {
				if o.Day != "" {
					ms = "2-digit"
				}
			}
			m.val = numeric(int(t.Month()), ms)
		}
		if o.Day != "" {
			ds := o.Day
			if lang == "fr" || lang == "it" || lang == "pt" || lang == "en" && region == "GB" || lang == "de" && o.Era != "" {
				ds = "2-digit"
			}
			d.val = numeric(t.Day(), ds)
		}
		if dayFirst {
			cs = []comp{d, m, y}
		} else {
			cs = []comp{m, d, y}
		}
		first := true
		for _, c := range cs {
			if c.val == "" {
				continue
			}
			if !first {
				b.lit(sep)
			}
			b.add(c.typ, c.val)
			first = false
		}
		if lang == "de" && y.val == "" && d.val != "" && m.val != "" {
			b.lit(".")
		}
		return
	}
	mt := monthText(t, o.Month, names)
	if lang == "en" && region != "" && region != "US" && mt == "Sep" {
		mt = "Sept"
	}
	switch {
	case lang == "en" && region != "GB" && region != "IN" && region != "AU":
		b.add("month", mt)
		if o.Day != "" {
			b.lit(" ")
			b.add("day", numeric(t.Day(), o.Day))
		}
		if o.Year != "" {
			if o.Day != "" {
				b.lit(", ")
			} else {
				b.lit(" ")
			}
			b.add("year", numeric(t.Year(), o.Year))
		}
	default:
		if o.Day != "" {
			b.add("day", numeric(t.Day(), o.Day))
			switch lang {
			case "de":
				b.lit(". ")
			case "es":
				if o.Month == "long" {
					b.lit(" de ")
				} else {
					b.lit(" ")
				}
			case "pt":
				b.lit(" de ")
			default:
				b.lit(" ")
			}
		}
		b.add("month", mt)
		if o.Year != "" {
			if lang == "es" && o.Month == "long" || lang == "pt" {
				b.lit(" de ")
			} else {
				b.lit(" ")
			}
			b.add("year", numeric(t.Year(), o.Year))
		}
	}
}

// timePart writes hour, minute and second.
func timePart(b *dateBuilder, t time.Time, o dateOpts, lang string, names dateNames) {
	h := t.Hour()
	if o.Hour != "" {
		hs := o.Hour
		if o.Hour12 {
			h12 := h % 12
			if h12 == 0 {
				h12 = 12
			}
			if lang == "ja" {
				b.add("dayPeriod", map[bool]string{true: names.am, false: names.pm}[h < 12])
			}
			b.add("hour", numeric(h12, hs))
		} else {
			b.add("hour", numeric(h, hs))
		}
	}
	if o.Minute != "" {
		if o.Hour != "" {
			b.lit(":")
		}
		ms := o.Minute
		if o.Hour != "" {
			ms = "2-digit"
		}
		b.add("minute", numeric(t.Minute(), ms))
	}
	if o.Second != "" {
		if o.Hour != "" || o.Minute != "" {
			b.lit(":")
		}
		ss := o.Second
		if o.Minute != "" {
			ss = "2-digit"
		}
		b.add("second", numeric(t.Second(), ss))
	}
	if o.FracDigits > 0 {
		b.lit(".")
		ms := t.Nanosecond() / 1e6
		s := strconv.Itoa(1000 + ms)[1:]
		b.add("fractionalSecond", s[:o.FracDigits])
	}
	if o.Hour != "" && o.Hour12 && lang != "ja" {
		b.lit(" ")
		b.add("dayPeriod", map[bool]string{true: names.am, false: names.pm}[h < 12])
	}
}

// styled writes dateStyle/timeStyle formats.
func styled(b *dateBuilder, t time.Time, o dateOpts, lang, region string, names dateNames, loc *time.Location) {
	gb := lang == "en" && (region == "GB" || region == "AU" || region == "IN")
	if o.DateStyle != "" {
		switch o.DateStyle {
		case "full":
			switch {
			case lang == "ja":
				datePart(b, t, dateOpts{Year: "numeric", Month: "long", Day: "numeric", Weekday: "long"}, lang, region, names)
			case gb:
				b.add("weekday", weekdayText(t, "long", names))
				b.lit(", ")
				datePart(b, t, dateOpts{Year: "numeric", Month: "long", Day: "numeric"}, lang, region, names)
			case lang == "fr" || lang == "it" || lang == "nl":
				b.add("weekday", weekdayText(t, "long", names))
				b.lit(" ")
				datePart(b, t, dateOpts{Year: "numeric", Month: "long", Day: "numeric"}, lang, region, names)
			default:
				b.add("weekday", weekdayText(t, "long", names))
				b.lit(", ")
				datePart(b, t, dateOpts{Year: "numeric", Month: "long", Day: "numeric"}, lang, region, names)
			}
		case "long":
			datePart(b, t, dateOpts{Year: "numeric", Month: "long", Day: "numeric"}, lang, region, names)
		case "medium":
			switch lang {
			case "de":
				datePart(b, t, dateOpts{Year: "numeric", Month: "2-digit", Day: "2-digit"}, lang, region, names)
			case "ja":
				b.add("year", strconv.Itoa(t.Year()))
				b.lit("/")
				b.add("month", pad2(int(t.Month())))
				b.lit("/")
				b.add("day", pad2(t.Day()))
			default:
				datePart(b, t, dateOpts{Year: "numeric", Month: "short", Day: "numeric"}, lang, region, names)
			}
		case "short":
			switch {
			case lang == "de":
				datePart(b, t, dateOpts{Year: "2-digit", Month: "2-digit", Day: "2-digit"}, lang, region, names)
			case lang == "ja":
				b.add("year", strconv.Itoa(t.Year()))
				b.lit("/")
				b.add("month", pad2(int(t.Month())))
				b.lit("/")
				b.add("day", pad2(t.Day()))
			case lang == "en" && !gb:
				datePart(b, t, dateOpts{Year: "2-digit", Month: "numeric", Day: "numeric"}, lang, region, names)
			case lang == "es":
				datePart(b, t, dateOpts{Year: "2-digit", Month: "numeric", Day: "numeric"}, lang, region, names)
			case lang == "it":
				datePart(b, t, dateOpts{Year: "2-digit", Month: "2-digit", Day: "2-digit"}, lang, region, names)
			case lang == "nl":
				b.add("day", pad2(t.Day()))
				b.lit("-")
				b.add("month", pad2(int(t.Month())))
				b.lit("-")
				b.add("year", strconv.Itoa(t.Year()))
			default:
				datePart(b, t, dateOpts{Year: "numeric", Month: "2-digit", Day: "2-digit"}, lang, region, names)
			}
		}
	}
	if o.TimeStyle != "" {
		if o.DateStyle != "" {
			switch {
			case (o.DateStyle == "long" || o.DateStyle == "full") && lang == "en":
				b.lit(" at ")
			case (o.DateStyle == "long" || o.DateStyle == "full") && lang == "de":
				b.lit(" um ")
			case (o.DateStyle == "long" || o.DateStyle == "full") && lang == "fr":
				b.lit(" à ")
			case (o.DateStyle == "long" || o.DateStyle == "full") && lang == "it":
				b.lit(" alle ore ")
			case (o.DateStyle == "long" || o.DateStyle == "full") && lang == "pt":
				b.lit(" às ")
			case (o.DateStyle == "long" || o.DateStyle == "full") && lang == "nl":
				b.lit(" om ")
			case lang == "fr" || lang == "ja":
				b.lit(" ")
			default:
				b.lit(", ")
			}
		}
		to := dateOpts{Hour: "numeric", Minute: "2-digit", Hour12: o.Hour12}
		if o.TimeStyle != "short" {
			to.Second = "2-digit"
		}
		if !o.Hour12 && lang != "es" && lang != "ja" {
			to.Hour = "2-digit"
		}
		timePart(b, t, to, lang, names)
		switch o.TimeStyle {
		case "long":
			b.lit(" ")
			b.add("timeZoneName", tzName(t, loc, "short", lang))
		case "full":
			b.lit(" ")
			b.add("timeZoneName", tzName(t, loc, "long", lang))
		}
	}
}

// hour12Default reports whether a locale uses a 12-hour clock.
func hour12Default(locale string) bool {
	base, region, _ := strings.Cut(locale, "-")
	switch base {
	case "en":
		return region != "GB" && region != "IE"
	case "hi", "ko":
		return true
	}
	return false
}

func dateNatives(rt *goja.Runtime, n natives) {
	// intlDate(ms, opts) → flat [type, value, ...]
	n.setE("intlDate", func(c goja.FunctionCall) (goja.Value, error) {
		var o dateOpts
		if err := rt.ExportTo(c.Argument(1), &o); err != nil {
			return nil, err
		}
		ps, err := formatDate(c.Argument(0).ToFloat(), o)
		if err != nil {
			return nil, err
		}
		out := make([]interface{}, 0, 2*len(ps))
		for _, p := range ps {
			out = append(out, p.typ, p.val)
		}
		return rt.NewArray(out...), nil
	})
	// intlZone(name) → canonical name (RangeError if unknown)
	n.setE("intlZone", func(c goja.FunctionCall) (goja.Value, error) {
		name := c.Argument(0).String()
		if _, err := loadZone(name); err != nil {
			return nil, err
		}
		if strings.EqualFold(name, "UTC") || strings.EqualFold(name, "Etc/UTC") || strings.EqualFold(name, "GMT") {
			return rt.ToValue("UTC"), nil
		}
		return rt.ToValue(name), nil
	})
	// intlHour12(locale) → the locale's default
	n.set("intlHour12", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(hour12Default(c.Argument(0).String()))
	})
}

package web

import (
	"math"
	"testing"
)

func TestFormatNumber(t *testing.T) {
	en := numOpts{Locale: "en-US", Style: "decimal", MaxFrac: 3, MinInt: 1, UseGrouping: "auto", Notation: "standard"}
	for _, c := range []struct {
		x    float64
		o    func(numOpts) numOpts
		want string
	}{
		{1234567.891, nil, "1,234,567.891"},
		{0.5, func(o numOpts) numOpts { o.MaxFrac = 0; return o }, "1"},
		{0.05, func(o numOpts) numOpts { o.MaxFrac = 1; return o }, "0.1"},
		{-0.0001, func(o numOpts) numOpts { o.MaxFrac = 2; return o }, "-0"},
		{1.005, func(o numOpts) numOpts { o.MaxFrac = 2; return o }, "1.01"},
		{math.Inf(-1), nil, "-∞"},
		{1234, func(o numOpts) numOpts { o.Locale = "es-ES"; return o }, "1234"},
		{12345, func(o numOpts) numOpts { o.Locale = "en-IN"; o.Exact = "1234567"; return o }, "12,34,567"},
		{0, func(o numOpts) numOpts { o.Notation = "scientific"; return o }, "0E0"},
		{-5, func(o numOpts) numOpts {
			o.Style = "currency"
			o.Currency = "USD"
			o.CurrencySign = "accounting"
			o.MinFrac, o.MaxFrac = 2, 2
			return o
		}, "($5.00)"},
	} {
		o := en
		if c.o != nil {
			o = c.o(o)
		}
		got := ""
		for _, p := range formatNumber(c.x, o) {
			got += p.val
		}
		if got != c.want {
			t.Errorf("formatNumber(%v, %+v) = %q, want %q", c.x, o, got, c.want)
		}
	}
}

func TestPluralCategory(t *testing.T) {
	for _, c := range []struct {
		locale  string
		ordinal bool
		n       float64
		want    string
	}{
		{"en", false, 1, "one"}, {"en", false, 1.5, "other"}, {"en", true, 22, "two"}, {"en", true, 113, "other"},
		{"ru", false, 21, "one"}, {"ru", false, 5, "many"}, {"ar", false, 0, "zero"}, {"ar", false, 3, "few"},
		{"en", false, math.NaN(), "other"}, {"en", false, math.Inf(1), "other"}, {"en", false, -1, "one"},
	} {
		if got := pluralCategory(c.locale, c.ordinal, c.n, 0, 3); got != c.want {
			t.Errorf("pluralCategory(%s, %v, %v) = %q, want %q", c.locale, c.ordinal, c.n, got, c.want)
		}
	}
}

func TestCanonicalLocale(t *testing.T) {
	for in, want := range map[string]string{"EN-us": "en-US", "zh-hant-tw": "zh-Hant-TW", "xx": "xx", "xx-latn-zz": "xx-Latn-ZZ"} {
		if got, err := canonicalLocale(in); err != nil || got != want {
			t.Errorf("canonicalLocale(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "not a locale!", "x_y", "??"} {
		if _, err := canonicalLocale(bad); err == nil {
			t.Errorf("canonicalLocale(%q) accepted", bad)
		}
	}
}

func TestPluralRulesCLDR48(t *testing.T) {
	for _, c := range []struct {
		locale  string
		ordinal bool
		ip, fp  string
		want    string
	}{
		{"fr", false, "1000000", "", "many"}, {"fr", false, "1", "5", "one"}, {"es", false, "1000000", "", "many"},
		{"ru", false, "11", "", "many"}, {"ru", false, "1", "5", "other"}, {"cy", true, "3", "", "few"},
		{"en", true, "113", "", "other"}, {"en", true, "23", "", "few"}, {"pt-PT", false, "0", "", "other"}, {"pt", false, "0", "", "one"},
	} {
		if got := pluralSelect(c.locale, c.ordinal, c.ip, c.fp); got != c.want {
			t.Errorf("pluralSelect(%s, %v, %s.%s) = %q, want %q", c.locale, c.ordinal, c.ip, c.fp, got, c.want)
		}
	}
}

// TestIntlIssue26Examples pins the outputs issue 26 quotes from workerd.
func TestIntlIssue26Examples(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for src, want := range map[string]string{
		`new Intl.RelativeTimeFormat("de").format(-1, "month")`:                                                                                     "vor 1 Monat",
		`new Intl.DateTimeFormat("en-AU", {timeZoneName: "short", timeZone: "Australia/Brisbane"}).format(Date.UTC(2026, 6, 4))`:                    "04/07/2026, AEST",
		`JSON.stringify(new Intl.Locale("en-US").getWeekInfo())`:                                                                                    `{"firstDay":7,"weekend":[6,7]}`,
		`new Intl.DateTimeFormat("en", {month: "short", day: "numeric", timeZone: "UTC"}).formatRange(Date.UTC(2026, 2, 8), Date.UTC(2026, 2, 11))`: "Mar 8 – 11",
		`new Intl.NumberFormat("fr", {notation: "compact", compactDisplay: "long"}).format(1000000)`:                                                "1 million",
		`new Intl.PluralRules("fr").select(1000000)`:                                                                                                "many",
	} {
		v, err := rt.RunString(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if v.String() != want {
			t.Errorf("%s = %q, want %q", src, v.String(), want)
		}
	}
}

// TestIntlRecordedOnWorkerd pins single values recorded on workerd
// 1.20261117.1 (ICU 78) for the fixes of this round.
func TestIntlRecordedOnWorkerd(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for src, want := range map[string]string{
		`JSON.stringify(new Intl.Locale("he-IL").getTimeZones())`:                                                                                 `["Asia/Jerusalem"]`,
		`new Intl.DateTimeFormat("th-TH", {dateStyle: "full", timeZone: "UTC"}).format(Date.UTC(2026, 2, 8, 12))`:                                 "วันอาทิตย์ที่ 8 มีนาคม พ.ศ. 2569",
		`new Intl.DateTimeFormat("fa-IR", {dateStyle: "medium", timeZone: "UTC"}).format(Date.UTC(2026, 2, 8, 12))`:                               "۱۷ اسفند ۱۴۰۴",
		`new Intl.DateTimeFormat("en-u-ca-hebrew", {dateStyle: "full", timeZone: "UTC"}).format(Date.UTC(2026, 2, 8))`:                            "Sunday, 19 Adar 5786",
		`new Intl.DateTimeFormat("ja-JP-u-ca-japanese", {era: "short", year: "numeric", timeZone: "UTC"}).format(Date.UTC(2026, 2, 8))`:           "令和8年",
		`new Intl.DateTimeFormat("th-TH").resolvedOptions().calendar + " " + new Intl.DateTimeFormat("th-u-ca-gregory").resolvedOptions().locale`: "buddhist th-u-ca-gregory",
	} {
		v, err := rt.RunString(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if v.String() != want {
			t.Errorf("%s = %q, want %q", src, v.String(), want)
		}
	}
}

// TestIntlDurationFormat: values recorded on workerd 1.20261117.1.
func TestIntlDurationFormat(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for src, want := range map[string]string{
		`new Intl.DurationFormat("en", {style: "long"}).format({hours: 1, minutes: 2, seconds: 3})`:                             "1 hour, 2 minutes, 3 seconds",
		`new Intl.DurationFormat("de").format({hours: 1, minutes: 2})`:                                                          "1 Std., 2 Min.",
		`new Intl.DurationFormat("en", {style: "digital"}).format({hours: 1, minutes: 2, seconds: 3})`:                          "1:02:03",
		`new Intl.DurationFormat("en", {style: "digital"}).format({hours: -1, minutes: -2, seconds: -3, milliseconds: -450})`:   "-1:02:03.45",
		`new Intl.DurationFormat("en").format({days: 2, milliseconds: 5})`:                                                      "2 days, 5 ms",
		`new Intl.DurationFormat("en").resolvedOptions().style + " " + new Intl.DurationFormat("en").resolvedOptions().seconds`: "short short",
	} {
		v, err := rt.RunString(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if v.String() != want {
			t.Errorf("%s = %q, want %q", src, v.String(), want)
		}
	}
}

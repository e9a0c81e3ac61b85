package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestIntlRange_ICUAlgorithm pins formatRange and formatRangeToParts to
// ICU's DateIntervalFormat as V8 drives it (intl_dtf_range.go), on values
// recorded on workerd 1.20261117.1 (ICU 78.2) in session 7: the interval
// pattern's own hour width (th buddhist "H:mm–H:mm", zh-TW's "Bh:mm至h:mm"
// from the hour normalized with its day period), the fallback pattern
// without UDATPG_MATCH_HOUR_FIELD_LENGTH (vi "HH:mm d/M/y"), a stand-alone
// month skeleton with no interval skeleton (fa "d LLL": the fallback, no
// years), ICU's seconds fallback (th "{0} - {1}"), the same-day date and
// time glue, no range when the differing field is below the pattern's
// (one date, shared), and the sources from ICU's spans (the literal
// between the halves and what follows the last repeated field are shared).
func TestIntlRange_ICUAlgorithm(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for _, c := range []struct {
		loc, opts  string
		a, b       int64
		want, srcs string
	}{
		{"th", `{"hour":"numeric","minute":"numeric","hourCycle":"h23","timeZone":"UTC"}`, 1772953199999, 1772953200000, "6:59–7:00", "st6|st:|st59|sh–|en7|en:|en00"},
		{"th-u-ca-gregory", `{"hour":"numeric","minute":"numeric","hourCycle":"h24","timeZone":"UTC"}`, 1772953200000, 1772971200000, "07:00 น. – 12:00 น.", "st07|st:|st00|sh น. – |en12|en:|en00|sh น."},
		{"zh-TW", `{"hour":"numeric","minute":"numeric","timeZone":"UTC"}`, 1772953199999, 1772953200000, "清晨6:59至7:00", "sh清晨|st6|st:|st59|sh至|en7|en:|en00"},
		{"vi-VN", `{"hour":"numeric","minute":"numeric","timeZone":"UTC"}`, 1772953200000, 1774744200005, "07:00 8/3/2026 – 00:30 29/3/2026", "st07|st:|st00|st |st8|st/|st3|st/|st2026|sh – |en00|en:|en30|en |en29|en/|en3|en/|en2026"},
		{"fa-IR", `{"month":"short","day":"numeric","timeZone":"UTC"}`, 1772953200000, 1774744200005, "۱۷ اسفند تا ۹ فروردین", "st۱۷|st |stاسفند|sh تا |en۹|en |enفروردین"},
		{"de", `{"hour":"numeric","minute":"numeric","timeZone":"UTC"}`, 1772953199999, 1772953200000, "06:59–07:00 Uhr", "st06|st:|st59|sh–|en07|en:|en00|sh Uhr"},
		{"ja-u-ca-buddhist", `{"hour":"numeric","minute":"numeric","timeZoneName":"short","hourCycle":"h23","timeZone":"UTC"}`, 1772953199999, 1772953200000, "6時59分～7時00分(UTC)", "st6|st時|st59|sh分～|en7|en時|en00|sh分(|shUTC|sh)"},
		{"th", `{"hour":"numeric","minute":"numeric","second":"numeric","timeZone":"UTC"}`, 1772953199999, 1772953200000, "06:59:59 - 07:00:00", "st06|st:|st59|st:|st59|sh - |en07|en:|en00|en:|en00"},
		{"en-US", `{"dateStyle":"medium","timeStyle":"short","timeZone":"UTC"}`, 1772953200000, 1772964000000, "Mar 8, 2026, 7:00 – 10:00 AM", "shMar|sh |sh8|sh, |sh2026|sh, |st7|st:|st00|sh – |en10|en:|en00|sh |shAM"},
		{"en-US", `{"dateStyle":"medium","timeStyle":"short","timeZone":"UTC"}`, 1772953200000, 1774744200005, "Mar 8, 2026, 7:00 AM – Mar 29, 2026, 12:30 AM", "stMar|st |st8|st, |st2026|st, |st7|st:|st00|st |stAM|sh – |enMar|en |en29|en, |en2026|en, |en12|en:|en30|en |enAM"},
		{"en-US", `{"year":"numeric","month":"short","timeZone":"UTC"}`, 1772953200000, 1773039600000, "Mar 2026", "shMar|sh |sh2026"},
		{"ar-EG", `{"dateStyle":"medium","timeZone":"UTC"}`, 1772953200000, 1774744200005, "٨‏/٣‏/٢٠٢٦ – ٢٩‏/٣‏/٢٠٢٦", "st٨|st‏/|st٣|st‏/|st٢٠٢٦|sh – |en٢٩|en‏/|en٣|en‏/|en٢٠٢٦"},
	} {
		src := fmt.Sprintf(`(() => { const f = new Intl.DateTimeFormat(%q, %s); return JSON.stringify([f.formatRange(%d, %d), f.formatRangeToParts(%d, %d).map(p => p.source.slice(0, 2) + p.value).join("|")]); })()`, c.loc, c.opts, c.a, c.b, c.a, c.b)
		v, err := rt.RunString(src)
		if err != nil {
			t.Fatalf("%s %s: %v", c.loc, c.opts, err)
		}
		var got [2]string
		if err := json.Unmarshal([]byte(v.String()), &got); err != nil {
			t.Fatal(err)
		}
		if got[0] != c.want || got[1] != c.srcs {
			t.Errorf("%s %s\n got  %q %q\n want %q %q", c.loc, c.opts, got[0], got[1], c.want, c.srcs)
		}
	}
}

// TestIntlNumber_PartsMergeLiterals: the text between two of ICU's fields
// is one literal part (he: the pattern's U+200F and the minus sign's
// U+200E), as recorded on workerd.
func TestIntlNumber_PartsMergeLiterals(t *testing.T) {
	rt, _ := newWebRuntime(t)
	v, err := rt.RunString(`JSON.stringify(new Intl.NumberFormat("he-IL", {style: "currency", currency: "EUR"}).formatToParts(-1234.5))`)
	if err != nil {
		t.Fatal(err)
	}
	want := "[{\"type\":\"literal\",\"value\":\"\u200f\u200e\"},{\"type\":\"minusSign\",\"value\":\"-\"},{\"type\":\"integer\",\"value\":\"1\"},{\"type\":\"group\",\"value\":\",\"},{\"type\":\"integer\",\"value\":\"234\"},{\"type\":\"decimal\",\"value\":\".\"},{\"type\":\"fraction\",\"value\":\"50\"},{\"type\":\"literal\",\"value\":\"\u00a0\u200f\"},{\"type\":\"currency\",\"value\":\"€\"}]"
	if v.String() != want {
		t.Errorf("got  %s\nwant %s", v.String(), want)
	}
}

// TestIntlDateTimeFormat_BoundFormat: format's bound function is the
// native one (intlDateBound) with ECMA-402's shape (length 1, name "",
// not a constructor, no prototype, the same function on every get), reads
// its date as ToNumber, throws V8's RangeError for a time value out of
// range, and formats now without a date; Date#toLocaleString without
// arguments reuses one formatter and formats as a new DateTimeFormat does.
func TestIntlDateTimeFormat_BoundFormat(t *testing.T) {
	rt, _ := newWebRuntime(t)
	v, err := rt.RunString(`(() => {
		const f = new Intl.DateTimeFormat("en", {timeZone: "UTC"});
		const g = f.format;
		const err = (fn) => { try { fn(); return "none"; } catch (e) { return e.constructor.name + ": " + e.message; } };
		const d = (k) => JSON.stringify(Object.getOwnPropertyDescriptor(g, k));
		return [g.length, JSON.stringify(g.name), d("length"), d("name"), String(Object.getOwnPropertyNames(g)),
			typeof g.prototype, g === f.format, g(0), g(new Date(86400000)), g({valueOf: () => 2 * 86400000}),
			err(() => g(NaN)), err(() => g(8.64e15 + 1)), err(() => new g(0)), typeof g() === "string" && g().length > 0,
			new Date(0).toLocaleString(), new Date(0).toLocaleString() === new Intl.DateTimeFormat(undefined, {year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", timeZone: "UTC"}).format(0),
			new Date(0).toLocaleDateString(), new Date(0).toLocaleTimeString()].join(" | ");
	})()`)
	if err != nil {
		t.Fatal(err)
	}
	want := `1 | "" | {"value":1,"writable":false,"enumerable":false,"configurable":true} | {"value":"","writable":false,"enumerable":false,"configurable":true} | length,name | undefined | true | 1/1/1970 | 1/2/1970 | 1/3/1970 | RangeError: Invalid time value | RangeError: Invalid time value | TypeError: g is not a constructor | true | 1/1/1970, 12:00:00 AM | true | 1/1/1970 | 12:00:00 AM`
	if v.String() != want {
		t.Errorf("got  %s\nwant %s", v.String(), want)
	}
}

// TestIntlNumber_CurrencyFormat: a currency's own pattern and separators
// (CLDR's currencies.json "pattern", "decimal", "group"), as ICU's
// DecimalFormatSymbols keeps them: the region's currency's when the
// formatter's currency has none (tr-TR formats JPY and EUR with TRY's
// "¤#,##0.00", even the long name and accounting; tr and tr-CY do not),
// completed with the separators of the locale that defines the entry
// (en-DE takes en-150's). Values recorded on workerd in session 7.
func TestIntlNumber_CurrencyFormat(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for _, want := range []string{
		"tr|JPY|name|standard|1.235 Japon yeni|-1 Japon yeni|0 Japon yeni",
		"tr|TRY|name|standard|₺1.234,50 Türk lirası|-₺1,00 Türk lirası|₺0,00 Türk lirası",
		"tr-TR|JPY|name|standard|¥1.235 Japon yeni|-¥1 Japon yeni|¥0 Japon yeni",
		"tr-TR|EUR|symbol|accounting|€1.234,50|-€1,00|€0,00",
		"tr-CY|EUR|symbol|accounting|€1.234,50|(€1,00)|€0,00",
		"en-150|EUR|symbol|standard|€1,234.50|-€1.00|€0.00",
		"en-AT|EUR|code|standard|EUR 1.234,50|-EUR 1,00|EUR 0,00",
		"de-AT|EUR|symbol|standard|€ 1.234,50|-€ 1,00|€ 0,00",
		"en-DE|EUR|name|standard|€1,234.50 euros|-€1.00 euros|€0.00 euros",
		"pt-CV|USD|symbol|standard|1234$50 US$|-1$00 US$|0$00 US$",
	} {
		f := strings.Split(want, "|")
		src := fmt.Sprintf(`(() => { const f = new Intl.NumberFormat(%q, {style: "currency", currency: %q, currencyDisplay: %q, currencySign: %q}); return [%q, %q, %q, %q, f.format(1234.5), f.format(-1), f.format(0)].join("|"); })()`, f[0], f[1], f[2], f[3], f[0], f[1], f[2], f[3])
		v, err := rt.RunString(src)
		if err != nil {
			t.Fatal(err)
		}
		if v.String() != want {
			t.Errorf("got  %q\nwant %q", v.String(), want)
		}
	}
}

// TestIntl_LocaleMethodShapes: the built-ins' locale methods keep their
// ECMA-402 shape after protoMethod's named-parameter wrapper (length 0,
// String#localeCompare 1; no prototype) and pass their arguments on.
func TestIntl_LocaleMethodShapes(t *testing.T) {
	rt, _ := newWebRuntime(t)
	v, err := rt.RunString(`[Date.prototype.toLocaleString, Date.prototype.toLocaleDateString, Date.prototype.toLocaleTimeString, Number.prototype.toLocaleString, String.prototype.localeCompare].map(f => f.name + "/" + f.length + "/" + ("prototype" in f)).join(" ") + " " + "a".localeCompare("b") + " " + (1234.5).toLocaleString("de", {maximumFractionDigits: 0}) + " " + new Date(0).toLocaleTimeString("de", {timeZone: "Asia/Tokyo"})`)
	if err != nil {
		t.Fatal(err)
	}
	want := "toLocaleString/0/false toLocaleDateString/0/false toLocaleTimeString/0/false toLocaleString/0/false localeCompare/1/false -1 1.235 09:00:00"
	if v.String() != want {
		t.Errorf("got  %s\nwant %s", v.String(), want)
	}
}

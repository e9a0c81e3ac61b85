// Command gen writes cellhost's Intl locale data from the CLDR JSON of the
// npm cldr-json packages (cldr-core, cldr-dates-full, cldr-numbers-full,
// cldr-units-full, cldr-misc-full, cldr-localenames-full) at the CLDR
// version whose data workerd's ICU 78.2 matches (CLDR 48.1; see README.md). Run it through `go generate
// ./jsapi/web/cldr` after `jsapi/web/cldr/fetch-cldr.sh` has installed the
// packages into ~/.cache/cellhost/cldr48 (or set CLDR_JSON to a
// node_modules holding them). Nothing here is typed by hand: each file is a
// selection of CLDR's own JSON.
//
// Output, in the data directory:
//   - supplemental.json.gz: likely subtags, parent locales, time/week data,
//     metazones, plural rules, currency digits, numbering systems...
//   - <locale>.json.gz for every locale of availableLocales "full": the
//     locale's resolved CLDR data minus what its parent (CLDR's
//     parentLocales, else truncation, ending at "und") already has, so a
//     reader merges the chain und → … → locale (a null deletes what a
//     parent has).
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

var src string

func load(pkg, rel string) map[string]any {
	b, err := os.ReadFile(filepath.Join(src, pkg, rel))
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		fail(err)
	}
	return m
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cldr gen:", err)
	os.Exit(1)
}

// at walks m along keys; nil when missing.
func at(m any, keys ...string) any {
	for _, k := range keys {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[k]
	}
	return m
}

// sanctioned are ECMA-402's simple units (IsSanctionedSingleUnitIdentifier).
var sanctioned = map[string]bool{}

func init() {
	for _, u := range strings.Fields(`acre bit byte celsius centimeter day degree fahrenheit fluid-ounce foot gallon gigabit gigabyte gram hectare hour inch kilobit kilobyte kilogram kilometer liter megabit megabyte meter microsecond mile mile-scandinavian milliliter millimeter millisecond minute month nanosecond ounce percent petabyte pound second stone terabit terabyte week yard year`) {
		sanctioned[u] = true
	}
}

// localeData is the subset of CLDR a locale's Intl needs, keyed as CLDR's JSON.
func localeData(loc string) map[string]any {
	out := map[string]any{}
	put := func(k string, v any) {
		if v != nil {
			out[k] = v
		}
	}
	g := at(load("cldr-dates-full", "main/"+loc+"/ca-gregorian.json"), "main", loc, "dates", "calendars", "gregorian")
	if gm, ok := g.(map[string]any); ok {
		trimCalendar(gm)
		put("gregorian", gm)
		generic, _ := at(load("cldr-dates-full", "main/"+loc+"/ca-generic.json"), "main", loc, "dates", "calendars", "generic").(map[string]any)
		trimCalendar(generic)
		var islamic map[string]any
		for _, c := range otherCalendars {
			cm, ok := at(load(c.pkg, "main/"+loc+"/ca-"+c.name+".json"), "main", loc, "dates", "calendars", c.name).(map[string]any)
			if !ok {
				continue // the locale inherits its parent's (see get in main)
			}
			trimCalendar(cm)
			if c.name == "japanese" {
				trimJapaneseEras(cm)
			}
			if c.old && generic != nil {
				// a package older than CLDR 48 lacks keys CLDR added since
				// (dateTimeFormats-atTime): take them from CLDR 48's
				// generic calendar, which ICU's data aliases these
				// calendars' patterns to
				cm = mergeMissing(cm, generic)
				// and names CLDR's root aliases to the Gregorian ones
				// (which changed since): CLDR 48's
				for _, k := range []string{"days", "dayPeriods", "quarters"} {
					cm[k] = gm[k]
				}
				// the date-time glue too (workerd: fa persian "{1} ساعت {0}",
				// CLDR 46's persian "{1}، ساعت {0}")
				if gd, ok := generic["dateTimeFormats"].(map[string]any); ok {
					cd, _ := cm["dateTimeFormats"].(map[string]any)
					for _, st := range []string{"full", "long", "medium", "short"} {
						if cd != nil && gd[st] != nil {
							cd[st] = gd[st]
						}
					}
				}
				// ICU's calendar data falls back to the Gregorian
				// calendar's for what a calendar lacks: the "at" glue
				// (fa: gregorian "{1} ساعت {0}", generic "{1}، ساعت {0}")
				if at := gm["dateTimeFormats-atTime"]; at != nil {
					cm["dateTimeFormats-atTime"] = at
				}
				if c.name == "buddhist" || c.name == "japanese" || c.name == "roc" {
					cm["months"] = gm["months"]
				}
			}
			base := gm
			if strings.HasPrefix(c.name, "islamic-") && islamic != nil {
				base = islamic // see cldr.Data.Calendar
			}
			put("ca-"+c.name, calendarDiff(cm, base))
			if c.name == "islamic" {
				islamic = cm
			}
		}
	}
	put("timeZoneNames", at(load("cldr-dates-full", "main/"+loc+"/timeZoneNames.json"), "main", loc, "dates", "timeZoneNames"))
	if f, ok := at(load("cldr-dates-full", "main/"+loc+"/dateFields.json"), "main", loc, "dates", "fields").(map[string]any); ok {
		keep := map[string]any{}
		for k, v := range f {
			base, _, _ := strings.Cut(k, "-")
			switch base {
			case "era", "year", "quarter", "month", "week", "day", "hour", "minute", "second", "weekday", "dayperiod", "zone":
				keep[k] = v
			}
		}
		put("fields", keep)
	}
	if n, ok := at(load("cldr-numbers-full", "main/"+loc+"/numbers.json"), "main", loc, "numbers").(map[string]any); ok {
		delete(n, "minimalPairs")
		for k := range n {
			if strings.HasPrefix(k, "rationalFormats") {
				delete(n, k)
			}
		}
		put("numbers", n)
	}
	put("currencies", at(load("cldr-numbers-full", "main/"+loc+"/currencies.json"), "main", loc, "numbers", "currencies"))
	if u, ok := at(load("cldr-units-full", "main/"+loc+"/units.json"), "main", loc, "units").(map[string]any); ok {
		keep := map[string]any{}
		for _, w := range []string{"long", "short", "narrow"} {
			wm, _ := u[w].(map[string]any)
			km := map[string]any{}
			for k, v := range wm {
				_, name, _ := strings.Cut(k, "-")
				a, b, isPer := strings.Cut(name, "-per-")
				if k == "per" || sanctioned[name] || isPer && sanctioned[a] && sanctioned[b] {
					km[k] = v
				}
			}
			keep[w] = km
		}
		put("units", keep)
	}
	put("listPatterns", at(load("cldr-misc-full", "main/"+loc+"/listPatterns.json"), "main", loc, "listPatterns"))
	ln := map[string]any{}
	for _, f := range []string{"languages", "scripts", "territories"} {
		if v := at(load("cldr-localenames-full", "main/"+loc+"/"+f+".json"), "main", loc, "localeDisplayNames", f); v != nil {
			ln[f] = v
		}
	}
	if v, ok := at(load("cldr-localenames-full", "main/"+loc+"/localeDisplayNames.json"), "main", loc, "localeDisplayNames").(map[string]any); ok {
		for k, x := range v {
			ln[k] = x
		}
	}
	put("localeDisplayNames", ln)
	return out
}

// otherCalendars are the calendars besides the Gregorian one whose data
// the generator writes (as "ca-<name>": what differs from the locale's
// Gregorian data). cldr-json publishes CLDR 48 only for some of them on
// npm; the others come from the newest package there is (old: true), see
// fetch-cldr.sh.
var otherCalendars = []struct {
	name, pkg string
	old       bool
}{
	{"buddhist", "cldr-cal-buddhist-full", true},
	{"japanese", "cldr-cal-japanese-full", true},
	{"roc", "cldr-cal-roc-full", true},
	{"persian", "cldr-cal-persian-full", true},
	{"indian", "cldr-cal-indian-full", true},
	{"hebrew", "cldr-cal-hebrew-full", false},
	{"islamic", "cldr-cal-islamic-full", false},
	{"islamic-civil", "cldr-cal-islamic-full", false},
	{"islamic-tbla", "cldr-cal-islamic-full", false},
	{"islamic-umalqura", "cldr-cal-islamic-full", false},
}

func trimCalendar(m map[string]any) {
	delete(m, "dateSkeletons")
	delete(m, "timeSkeletons")
	delete(m, "dateTimeFormats-relative")
}

// trimJapaneseEras keeps the eras from Meiji (232, 1868) on: the 232
// before it would be most of the calendar data for dates no app formats
// (cellhost's Japanese calendar starts at Meiji, see intl_calendar.go).
func trimJapaneseEras(m map[string]any) {
	eras, _ := m["eras"].(map[string]any)
	for _, w := range eras {
		wm, _ := w.(map[string]any)
		for k := range wm {
			n := 0
			fmt.Sscan(strings.TrimSuffix(k, "-alt-variant"), &n)
			if n < 232 {
				delete(wm, k)
			}
		}
	}
}

// mergeMissing adds to m what def has and m has not (recursively).
func mergeMissing(m, def map[string]any) map[string]any {
	for k, v := range def {
		mv, ok := m[k]
		if !ok {
			m[k] = v
			continue
		}
		if mm, ok := mv.(map[string]any); ok {
			if dm, ok := v.(map[string]any); ok {
				mergeMissing(mm, dm)
			}
		}
	}
	return m
}

// calendarDiff is what a calendar's data changes in the Gregorian data
// greg: its own values, and "∅" (not JSON null, which the per-parent
// diff uses) where the calendar lacks what greg has. The reader
// (cldr.Data.Calendar) merges it over the Gregorian data.
func calendarDiff(cal, greg map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range cal {
		cm, cok := v.(map[string]any)
		gm, gok := greg[k].(map[string]any)
		switch {
		case cok && gok:
			if d := calendarDiff(cm, gm); len(d) > 0 {
				out[k] = d
			}
		case !reflect.DeepEqual(v, greg[k]):
			out[k] = v
		}
	}
	for k := range greg {
		if _, ok := cal[k]; !ok {
			out[k] = "∅"
		}
	}
	return out
}

// diff returns what child has that parent has not (nil when nothing).
func diff(child, parent any) any {
	cm, cok := child.(map[string]any)
	pm, pok := parent.(map[string]any)
	if cok && pok {
		out := map[string]any{}
		for k, v := range cm {
			if d := diff(v, pm[k]); d != nil {
				out[k] = d
			}
		}
		// what the parent has and the child has not: null, which the
		// reader deletes (cldr-json's resolved data drops inheritance
		// markers such as en-001's "∅∅∅" short American zone names)
		for k := range pm {
			if _, ok := cm[k]; !ok {
				out[k] = nil
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	if reflect.DeepEqual(child, parent) {
		return nil
	}
	return child
}

func parentOf(loc string, parents map[string]any) string {
	if p, ok := parents[loc].(string); ok {
		return p
	}
	if i := strings.LastIndexByte(loc, '-'); i > 0 {
		return loc[:i]
	}
	if loc == "und" {
		return ""
	}
	return "und"
}

func write(dir, name string, v any) int {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fail(err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(raw.Bytes())
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
		fail(err)
	}
	return buf.Len()
}

func main() {
	home, _ := os.UserHomeDir()
	def := os.Getenv("CLDR_JSON")
	if def == "" {
		def = filepath.Join(home, ".cache/cellhost/cldr48/node_modules")
	}
	flag.StringVar(&src, "src", def, "node_modules directory holding the cldr-json packages")
	out := flag.String("o", "data", "output directory")
	flag.Parse()
	core := load("cldr-core", "package.json")
	if core == nil {
		fail(fmt.Errorf("no cldr-core in %s: run jsapi/web/cldr/fetch-cldr.sh or set CLDR_JSON", src))
	}
	if v := core["version"]; v != "48.1.0" {
		fail(fmt.Errorf("cldr-core %v in %s; workerd's ICU 78.2 data is CLDR 48.1.0's (run fetch-cldr.sh)", v, src))
	}
	// the generated files go (a locale CLDR dropped must not stay);
	// record-umalqura.sh's table is not this generator's and stays
	if old, err := filepath.Glob(filepath.Join(*out, "*.json.gz")); err == nil {
		for _, f := range old {
			if filepath.Base(f) != "umalqura.json.gz" {
				os.Remove(f)
			}
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	sup := map[string]any{}
	for k, f := range map[string]string{
		"likelySubtags": "likelySubtags", "parentLocales": "parentLocales", "timeData": "timeData", "weekData": "weekData",
		"metaZones": "metaZones", "primaryZones": "primaryZones", "plurals": "plurals", "ordinals": "ordinals",
		"pluralRanges": "pluralRanges", "currencyData": "currencyData", "numberingSystems": "numberingSystems",
		"calendarPreferenceData": "calendarPreferenceData", "calendarData": "calendarData", "dayPeriods": "dayPeriods", "aliases": "aliases",
	} {
		m := load("cldr-core", "supplemental/"+k+".json")
		v := at(m, "supplemental", k)
		switch k {
		case "aliases":
			v = at(m, "supplemental", "metadata", "alias")
		case "pluralRanges":
			v = at(m, "supplemental", "plurals")
		case "dayPeriods":
			v = at(m, "supplemental", "dayPeriodRuleSet")
		}
		if k == "plurals" {
			v = at(m, "supplemental", "plurals-type-cardinal")
		}
		if k == "ordinals" {
			v = at(m, "supplemental", "plurals-type-ordinal")
		}
		if k == "currencyData" {
			v = at(m, "supplemental", "currencyData", "fractions")
		}
		if v == nil {
			fail(fmt.Errorf("supplemental %s (%s) missing", k, f))
		}
		sup[k] = v
	}
	parents := at(sup, "parentLocales", "parentLocale").(map[string]any)
	avail := at(load("cldr-core", "availableLocales.json"), "availableLocales", "full").([]any)
	var locales []string
	for _, l := range avail {
		locales = append(locales, l.(string))
	}
	sort.Strings(locales)
	sup["locales"] = locales
	sup["defaultContent"] = at(load("cldr-core", "defaultContent.json"), "defaultContent")
	// time zones: every alias → CLDR's canonical id (the first alias), and
	// that id → the IANA name ECMA-402 reports
	zoneCanon, zoneIANA, zoneRegion := map[string]any{}, map[string]any{}, map[string]any{}
	// English region names, to read the region in a zone's description
	// ("Jerusalem, Israel": the key "jeruslm" does not start with IL)
	regionByName := map[string]string{}
	if en, ok := at(load("cldr-localenames-full", "main/en/territories.json"), "main", "en", "localeDisplayNames", "territories").(map[string]any); ok {
		for code, name := range en {
			if len(code) == 2 {
				regionByName[name.(string)] = code
			}
		}
	}
	tz, _ := at(load("cldr-bcp47", "bcp47/timezone.json"), "keyword", "u", "tz").(map[string]any)
	if tz == nil {
		fail(fmt.Errorf("no cldr-bcp47 in %s", src))
	}
	for key, v := range tz {
		e, ok := v.(map[string]any)
		if !ok || strings.HasPrefix(key, "_") {
			continue
		}
		al, _ := e["_alias"].(string)
		ids := strings.Fields(al)
		if len(ids) == 0 {
			continue
		}
		for _, id := range ids {
			zoneCanon[id] = ids[0]
		}
		iana, _ := e["_iana"].(string)
		if iana == "" {
			iana = ids[0]
		}
		zoneIANA[ids[0]] = iana
		// a key of five or more letters starts with the zone's ISO 3166
		// region ("usnyc", "debsngn"); utc* and three-letter keys are in
		// none
		if dep, _ := e["_deprecated"].(string); len(key) >= 5 && !strings.HasPrefix(key, "utc") && dep != "true" {
			r := strings.ToUpper(key[:2])
			desc, _ := e["_description"].(string)
			if i := strings.LastIndex(desc, ", "); i >= 0 {
				if code, ok := regionByName[desc[i+2:]]; ok {
					r = code
				}
			}
			// cldr-bcp47 names the region where the key does not
			// ("jeruslm": IL, "gazastrp": PS)
			if reg, _ := e["_region"].(string); reg != "" {
				r = reg
			}
			zoneRegion[ids[0]] = r
		}
	}
	// the currencies in use (supportedValuesOf("currency")): a region's
	// tender without an end date
	// (and per region its first, which ICU's ucurr_forLocale answers and
	// DecimalFormatSymbols loads its currency pattern from)
	current := map[string]bool{}
	regionCurrency := map[string]any{}
	for r, l := range at(load("cldr-core", "supplemental/currencyData.json"), "supplemental", "currencyData", "region").(map[string]any) {
		for _, e := range l.([]any) {
			for code, v := range e.(map[string]any) {
				m := v.(map[string]any)
				if m["_to"] == nil && m["_tender"] != "false" {
					current[code] = true
					if regionCurrency[r] == nil {
						regionCurrency[r] = code
					}
				}
			}
		}
	}
	sup["regionCurrency"] = regionCurrency
	var currencies []string
	for c := range current {
		currencies = append(currencies, c)
	}
	sort.Strings(currencies)
	sup["currencyCurrent"] = currencies
	sup["zoneRegion"] = zoneRegion
	sup["zoneCanonical"] = zoneCanon
	sup["zoneIANA"] = zoneIANA
	total := write(*out, "supplemental.json.gz", sup)
	full := map[string]map[string]any{}
	var get func(l string) map[string]any
	get = func(l string) map[string]any {
		if d, ok := full[l]; ok {
			return d
		}
		d := localeData(l)
		// a calendar the locale's package has no file for: the parent's
		if pl := parentOf(l, parents); pl != "" {
			pd := get(pl)
			for _, c := range otherCalendars {
				if _, ok := d["ca-"+c.name]; !ok && pd["ca-"+c.name] != nil {
					d["ca-"+c.name] = pd["ca-"+c.name]
				}
			}
		}
		full[l] = d
		return d
	}
	for _, l := range locales {
		d := get(l)
		var p map[string]any
		if pl := parentOf(l, parents); pl != "" {
			p = get(pl)
		}
		dd, _ := diff(d, p).(map[string]any)
		if dd == nil {
			dd = map[string]any{}
		}
		total += write(*out, l+".json.gz", dd)
	}
	fmt.Printf("cldr gen: %d locales, %d bytes compressed\n", len(locales), total)
}

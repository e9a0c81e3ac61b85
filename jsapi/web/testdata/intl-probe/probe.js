// probe.js: Intl outputs over the 40 most used locales, many options,
// dates across DST changes and numbers across magnitudes. The same script
// runs on workerd (record.sh writes expected.json) and on cellhost
// (TestIntlProbe compares). Each value is [label, output]; an exception is
// recorded as "!Name: message". With stride n > 1 only every nth value is
// computed (the others are null), for a quick run.
function probe(stride = 1) {
  const locales = ["en-US", "en-GB", "en-IN", "en-AU", "en-CA", "zh-CN", "zh-TW", "zh-HK", "es-ES", "es-MX", "es-419", "fr-FR", "fr-CA", "de-DE", "de-CH", "de-AT", "ja-JP", "pt-BR", "pt-PT", "ru-RU", "ar-EG", "ar-SA", "hi-IN", "bn-BD", "ko-KR", "it-IT", "tr-TR", "pl-PL", "nl-NL", "id-ID", "th-TH", "vi-VN", "uk-UA", "sv-SE", "fa-IR", "he-IL", "ms-MY", "cs-CZ", "ro-RO", "el-GR"];
  const out = [];
  let index = 0;
  const rec = (label, f) => {
    if (index++ % stride !== 0) {
      out.push([label, null]);
      return;
    }
    let v;
    try {
      v = f();
      if (typeof v !== "string") v = JSON.stringify(v);
    } catch (e) {
      v = "!" + e.name + ": " + e.message;
    }
    out.push([label, v]);
  };
  const dates = [
    Date.UTC(2026, 2, 8, 6, 59, 59, 999), // before US DST
    Date.UTC(2026, 2, 8, 7, 0, 0, 0), // after US DST
    Date.UTC(2026, 2, 29, 0, 30, 0, 5), // before EU DST
    Date.UTC(2026, 2, 29, 1, 30, 0, 50), // after EU DST
    Date.UTC(2026, 9, 25, 0, 59, 1, 500), // EU DST end
    Date.UTC(2026, 10, 1, 12, 0, 0, 0), // US DST end day, noon
    Date.UTC(2025, 11, 31, 23, 59, 59, 999),
    Date.UTC(1969, 6, 20, 20, 17, 40, 0),
  ];
  const zones = ["America/New_York", "Europe/Berlin", "Asia/Kolkata", "Australia/Sydney", "UTC", "America/Los_Angeles", "Asia/Tokyo", "America/Sao_Paulo"];
  const dtOpts = [
    {},
    { dateStyle: "full" }, { dateStyle: "long" }, { dateStyle: "medium" }, { dateStyle: "short" },
    { timeStyle: "full" }, { timeStyle: "long" }, { timeStyle: "medium" }, { timeStyle: "short" },
    { dateStyle: "full", timeStyle: "short" }, { dateStyle: "medium", timeStyle: "medium" }, { dateStyle: "short", timeStyle: "long" },
    { year: "numeric", month: "long", day: "numeric" },
    { year: "numeric", month: "short", day: "numeric", weekday: "short" },
    { year: "2-digit", month: "2-digit", day: "2-digit" },
    { month: "long" }, { weekday: "long" }, { month: "short", day: "numeric" }, { year: "numeric", month: "long" },
    { hour: "numeric", minute: "2-digit" }, { hour: "2-digit", minute: "2-digit", second: "2-digit" },
    { hour: "numeric", minute: "numeric", hour12: false }, { hour: "numeric", hour12: true }, { hour: "numeric", minute: "numeric", hourCycle: "h23" }, { hour: "numeric", hourCycle: "h11" },
    { hour: "numeric", minute: "numeric", second: "numeric", fractionalSecondDigits: 3 },
    { hour: "numeric", dayPeriod: "long" }, { hour: "numeric", minute: "numeric", dayPeriod: "short" },
    { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", timeZoneName: "short" },
    { hour: "numeric", minute: "numeric", timeZoneName: "long" },
    { hour: "numeric", timeZoneName: "shortOffset" }, { hour: "numeric", timeZoneName: "longOffset" },
    { hour: "numeric", timeZoneName: "shortGeneric" }, { hour: "numeric", timeZoneName: "longGeneric" },
    { era: "short", year: "numeric" }, { era: "long", year: "numeric", month: "short", day: "numeric" },
    { weekday: "long", year: "numeric", month: "long", day: "numeric", hour: "numeric", minute: "numeric" },
  ];
  for (let li = 0; li < locales.length; li++) {
    const loc = locales[li];
    for (let oi = 0; oi < dtOpts.length; oi++) {
      for (let di = 0; di < dates.length; di++) {
        const tz = zones[(li + oi + di) % zones.length];
        const o = Object.assign({ timeZone: tz }, dtOpts[oi]);
        rec(`dtf ${loc} ${JSON.stringify(o)} ${new Date(dates[di]).toISOString()}`, () => new Intl.DateTimeFormat(loc, o).format(dates[di]));
      }
      rec(`dtf-resolved ${loc} ${JSON.stringify(dtOpts[oi])}`, () => {
        const r = new Intl.DateTimeFormat(loc, dtOpts[oi]).resolvedOptions();
        delete r.timeZone;
        return r;
      });
    }
    const f = new Intl.DateTimeFormat(loc, { dateStyle: "medium", timeStyle: "short", timeZone: zones[li % zones.length] });
    rec(`dtf-parts ${loc}`, () => f.formatToParts(dates[li % dates.length]));
    for (const [a, b] of [[dates[0], dates[1]], [dates[1], dates[2]], [dates[5], dates[6]], [dates[7], dates[6]]]) {
      for (const o of [{ month: "short", day: "numeric" }, { year: "numeric", month: "short", day: "numeric" }, { hour: "numeric", minute: "numeric" }, { dateStyle: "medium" }]) {
        rec(`dtf-range ${loc} ${JSON.stringify(o)} ${a} ${b}`, () => new Intl.DateTimeFormat(loc, Object.assign({ timeZone: "UTC" }, o)).formatRange(a, b));
      }
    }
    // numbers
    const nums = [0, -0, 1, -1, 1.5, 12.345, 999.995, 1234.5678, -98765.4321, 1e6, 1234567.891, 0.000123, 1e21, 123456789012345, NaN, -Infinity];
    const nOpts = [
      {}, { style: "percent" }, { style: "currency", currency: "USD" }, { style: "currency", currency: "EUR", currencyDisplay: "code" },
      { style: "currency", currency: "JPY", currencyDisplay: "name" }, { style: "currency", currency: "EUR", currencySign: "accounting" },
      { notation: "compact" }, { notation: "compact", compactDisplay: "long" }, { notation: "scientific" }, { notation: "engineering" },
      { maximumSignificantDigits: 3 }, { minimumFractionDigits: 2 }, { signDisplay: "always" }, { signDisplay: "exceptZero" },
      { style: "unit", unit: "kilometer-per-hour" }, { style: "unit", unit: "liter", unitDisplay: "long" }, { style: "unit", unit: "byte", unitDisplay: "narrow" },
      { maximumFractionDigits: 0, roundingMode: "floor" }, { useGrouping: false }, { minimumIntegerDigits: 3 },
    ];
    for (const o of nOpts) {
      for (const n of nums) rec(`nf ${loc} ${JSON.stringify(o)} ${Object.is(n, -0) ? "-0" : n}`, () => new Intl.NumberFormat(loc, o).format(n));
    }
    rec(`nf-parts ${loc}`, () => new Intl.NumberFormat(loc, { style: "currency", currency: "EUR" }).formatToParts(-1234.5));
    rec(`nf-range ${loc}`, () => new Intl.NumberFormat(loc, { style: "currency", currency: "USD", maximumFractionDigits: 0 }).formatRange(3, 5));
    rec(`nf-resolved ${loc}`, () => new Intl.NumberFormat(loc).resolvedOptions());
    // plurals
    for (const type of ["cardinal", "ordinal"]) {
      const pr = new Intl.PluralRules(loc, { type });
      for (const n of [0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 21, 22, 23, 101, 111, 1000000, 0.5, 1.5, 2.25, 10.1]) rec(`pr ${loc} ${type} ${n}`, () => pr.select(n));
      rec(`pr-categories ${loc} ${type}`, () => pr.resolvedOptions().pluralCategories);
    }
    rec(`pr-range ${loc}`, () => new Intl.PluralRules(loc).selectRange(1, 5));
    // relative time
    for (const style of ["long", "short", "narrow"]) {
      for (const numeric of ["always", "auto"]) {
        const rtf = new Intl.RelativeTimeFormat(loc, { style, numeric });
        for (const unit of ["second", "minute", "hour", "day", "week", "month", "quarter", "year"]) {
          for (const v of [-2, -1, 0, 1, 5]) rec(`rtf ${loc} ${style} ${numeric} ${unit} ${v}`, () => rtf.format(v, unit));
        }
      }
    }
    // lists
    for (const type of ["conjunction", "disjunction", "unit"]) {
      for (const style of ["long", "short", "narrow"]) {
        rec(`lf ${loc} ${type} ${style}`, () => new Intl.ListFormat(loc, { type, style }).format(["A", "B", "C"]));
        rec(`lf2 ${loc} ${type} ${style}`, () => new Intl.ListFormat(loc, { type, style }).format(["A", "B"]));
      }
    }
    // display names
    for (const [type, codes] of [["language", ["en", "de", "fr-CA", "zh-Hant", "pt-BR"]], ["region", ["US", "DE", "JP", "BR", "419"]], ["script", ["Latn", "Cyrl", "Arab"]], ["currency", ["USD", "EUR", "JPY"]]]) {
      const dn = new Intl.DisplayNames(loc, { type });
      for (const c of codes) rec(`dn ${loc} ${type} ${c}`, () => dn.of(c));
    }
    // locale info
    rec(`locale ${loc}`, () => {
      const l = new Intl.Locale(loc);
      const x = l.maximize();
      return [x.toString(), x.minimize().toString(), l.getWeekInfo ? l.getWeekInfo() : null, l.getHourCycles ? l.getHourCycles() : null, l.getCalendars ? l.getCalendars() : null, l.getTimeZones ? l.getTimeZones() : null];
    });
    rec(`supported ${loc}`, () => Intl.DateTimeFormat.supportedLocalesOf([loc, loc + "-u-nu-latn", loc.split("-")[0] + "-XX"]));
    rec(`toLocaleString ${loc}`, () => [new Date(dates[3]).toLocaleString(loc, { timeZone: "UTC" }), (1234567.891).toLocaleString(loc), new Date(dates[3]).toLocaleDateString(loc, { timeZone: "UTC" }), new Date(dates[3]).toLocaleTimeString(loc, { timeZone: "UTC" })]);
  }
  return out;
}

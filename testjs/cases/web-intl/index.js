// Intl as real code uses it, with ICU's outputs on workerd: NumberFormat
// (decimal, percent, currency, digits, compact, parts), DateTimeFormat
// (components, date/time styles, time zones, parts), toLocaleString and
// friends, Collator and localeCompare, PluralRules, Segmenter,
// RelativeTimeFormat, ListFormat, Locale, and V8's errors.
import { DurableObject } from "cloudflare:workers";

function c(f) {
  try {
    return f();
  } catch (e) {
    return { err: e.name, msg: e.message };
  }
}
const d = new Date(Date.UTC(2024, 0, 5, 14, 3, 9, 7));
const night = new Date(Date.UTC(2023, 11, 31, 23, 59, 59, 999));

export class Obj extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    const out = {};
    switch (url.pathname) {
      case "/number": {
        out.has = ["DateTimeFormat", "NumberFormat", "Collator", "PluralRules", "RelativeTimeFormat", "ListFormat", "Locale", "Segmenter"].map((k) => typeof Intl[k]);
        out.en = [1234567.891, -0.5, 0, -0, 1e21, NaN, Infinity, -Infinity, 0.000001234, 2.5, 3.5, 1.005, 999.9995, 123456789012].map((n) => new Intl.NumberFormat("en-US").format(n));
        out.locales = ["de-DE", "fr-FR", "es-ES", "it-IT", "pt-BR", "nl-NL", "ru-RU", "sv-SE", "pl-PL", "ja-JP", "zh-CN", "ko-KR", "en-GB", "en-IN", "hi-IN"].map((l) => [l, new Intl.NumberFormat(l).format(1234567.891), new Intl.NumberFormat(l).format(-1234.5), new Intl.NumberFormat(l).format(4321)]);
        out.currency = [["en-US", "USD"], ["en-US", "EUR"], ["en-US", "JPY"], ["de-DE", "EUR"], ["de-DE", "USD"], ["fr-FR", "EUR"], ["ja-JP", "JPY"], ["en-GB", "GBP"], ["en-IN", "INR"], ["es-ES", "EUR"], ["it-IT", "EUR"], ["pt-BR", "BRL"], ["nl-NL", "EUR"], ["zh-CN", "CNY"], ["ko-KR", "KRW"], ["en-US", "CAD"]].map(([l, cur]) => new Intl.NumberFormat(l, { style: "currency", currency: cur }).format(1234567.891));
        out.currencyNeg = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(-5);
        out.currencyCode = new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR", currencyDisplay: "code" }).format(12);
        out.percent = [["en-US", 0.256], ["de-DE", 0.256], ["fr-FR", 0.256], ["en-US", -0.5], ["en-US", 1.5]].map(([l, n]) => new Intl.NumberFormat(l, { style: "percent" }).format(n));
        out.digits = [
          new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(3.14159),
          new Intl.NumberFormat("en-US", { minimumFractionDigits: 2 }).format(3),
          new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 }).format(2.5),
          new Intl.NumberFormat("en-US", { maximumSignificantDigits: 3 }).format(123456),
          new Intl.NumberFormat("en-US", { minimumSignificantDigits: 3 }).format(5),
          new Intl.NumberFormat("en-US", { minimumIntegerDigits: 3 }).format(7),
          new Intl.NumberFormat("en-US", { useGrouping: false }).format(12345.6),
          new Intl.NumberFormat("en-US", { signDisplay: "always" }).format(5),
          new Intl.NumberFormat("en-US", { signDisplay: "exceptZero" }).format(0),
          new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 }).format(0.12345),
        ];
        out.compact = [1234, 1234567, 999, 12345, 150000, 1e9, 2.5e12].map((n) => new Intl.NumberFormat("en-US", { notation: "compact" }).format(n));
        out.parts = new Intl.NumberFormat("en-US").formatToParts(-1234.5);
        out.currencyParts = new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" }).formatToParts(1234.5);
        out.resolved = [new Intl.NumberFormat("en-US", { style: "currency", currency: "usd" }).resolvedOptions(), new Intl.NumberFormat().resolvedOptions(), new Intl.NumberFormat("de", { style: "percent" }).resolvedOptions()];
        out.toLocaleString = [(1234.5).toLocaleString(), (1234.5).toLocaleString("de-DE"), (1234.5).toLocaleString(undefined, { style: "currency", currency: "EUR" }), (0.1 + 0.2).toLocaleString(), 12345678901234567890n.toLocaleString(), [1234, 5678.9].toLocaleString()];
        out.bound = [1, 22, 333333].map(new Intl.NumberFormat("en-US").format);
        out.call = Intl.NumberFormat("en-US").format(1000);
        return Response.json(out);
      }
      case "/date": {
        const dtf = (l, o, x = d) => new Intl.DateTimeFormat(l, o).format(x);
        out.defaults = [dtf("en-US"), dtf("en-US", { timeZone: "UTC" }), dtf("en-GB"), dtf("de-DE"), dtf("fr-FR"), dtf("ja-JP"), dtf("es-ES")];
        out.dateStyles = ["en-US", "en-GB", "de-DE", "fr-FR", "ja-JP", "es-ES"].map((l) => ["short", "medium", "long", "full"].map((s) => dtf(l, { dateStyle: s })));
        out.timeStyles = ["en-US", "en-GB", "de-DE"].map((l) => ["short", "medium", "long", "full"].map((s) => dtf(l, { timeStyle: s })));
        out.both = [dtf("en-US", { dateStyle: "full", timeStyle: "long" }), dtf("en-US", { dateStyle: "short", timeStyle: "short" }), dtf("de-DE", { dateStyle: "long", timeStyle: "short" }), dtf("en-US", { dateStyle: "medium", timeStyle: "medium" })];
        out.components = [
          dtf("en-US", { year: "numeric", month: "long", day: "numeric" }),
          dtf("en-US", { year: "numeric", month: "short", day: "numeric" }),
          dtf("en-US", { weekday: "long", year: "numeric", month: "long", day: "numeric" }),
          dtf("en-US", { weekday: "short", month: "short", day: "numeric" }),
          dtf("en-US", { month: "long", year: "numeric" }),
          dtf("en-US", { month: "long", day: "numeric" }),
          dtf("en-US", { month: "long" }),
          dtf("en-US", { weekday: "long" }),
          dtf("en-US", { year: "numeric" }),
          dtf("en-US", { year: "numeric", month: "2-digit", day: "2-digit" }),
          dtf("en-US", { hour: "numeric", minute: "2-digit" }),
          dtf("en-US", { hour: "2-digit", minute: "2-digit" }),
          dtf("en-US", { hour: "numeric" }),
          dtf("en-US", { hour: "numeric", minute: "numeric", second: "numeric", hour12: false }),
          dtf("en-US", { hour: "numeric", minute: "2-digit", hourCycle: "h23" }),
          dtf("en-US", { weekday: "short", hour: "numeric", minute: "2-digit" }),
          dtf("en-US", { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" }),
          dtf("en-US", { hour: "numeric", minute: "2-digit", second: "2-digit", fractionalSecondDigits: 3 }),
          dtf("en-US", { hour: "numeric", timeZoneName: "short" }),
          dtf("en-GB", { hour: "numeric", minute: "2-digit" }),
          dtf("de-DE", { day: "numeric", month: "long", year: "numeric" }),
          dtf("en-GB", { day: "numeric", month: "long", year: "numeric" }),
          dtf("en-US", { hour: "numeric", minute: "2-digit" }, night),
          dtf("en-US", { hour: "numeric" }, new Date(Date.UTC(2024, 0, 1, 0, 30))),
        ];
        out.zones = [
          dtf("en-US", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false }),
          dtf("en-US", { timeZone: "America/New_York", timeStyle: "long" }),
          dtf("en-US", { timeZone: "Asia/Tokyo", dateStyle: "medium", timeStyle: "short" }),
          dtf("en-US", { timeZone: "America/Los_Angeles", timeZoneName: "short" }, new Date(Date.UTC(2024, 6, 1))),
          dtf("en-US", { timeZone: "Europe/Berlin", hour: "numeric", timeZoneName: "short" }),
          dtf("en-US", { timeZone: "Asia/Kolkata", hour: "numeric", minute: "2-digit", timeZoneName: "short" }),
        ];
        out.parts = new Intl.DateTimeFormat("en-US").formatToParts(d);
        out.timeParts = new Intl.DateTimeFormat("en-US", { hour: "numeric", minute: "2-digit" }).formatToParts(d);
        out.resolved = [new Intl.DateTimeFormat().resolvedOptions(), new Intl.DateTimeFormat("en-US", { dateStyle: "short", timeStyle: "short" }).resolvedOptions(), new Intl.DateTimeFormat("de-DE", { hour: "numeric", minute: "numeric" }).resolvedOptions(), new Intl.DateTimeFormat("en-US", { timeZone: "utc" }).resolvedOptions().timeZone];
        out.toLocale = [d.toLocaleString(), d.toLocaleDateString(), d.toLocaleTimeString(), d.toLocaleString("en-US", { timeZone: "UTC" }), d.toLocaleDateString("de-DE"), d.toLocaleDateString("en-GB"), d.toLocaleTimeString("en-US", { hour: "2-digit", minute: "2-digit" }), d.toLocaleDateString(undefined, { weekday: "long", year: "numeric", month: "long", day: "numeric" }), d.toLocaleTimeString("de-DE"), d.toLocaleString("en-GB"), new Date(NaN).toLocaleString()];
        out.bound = [d, night].map(new Intl.DateTimeFormat("en-US").format);
        out.formatNumber = new Intl.DateTimeFormat("en-US").format(0);
        return Response.json(out);
      }
      case "/text": {
        out.coll = ["b", "a", "B", "ä", "z", "Z", "10", "9", "é", "e", "A"].sort(new Intl.Collator("en").compare);
        out.collNumeric = ["10", "9", "1", "item 20", "item 3"].sort(new Intl.Collator("en", { numeric: true }).compare);
        out.collBase = [new Intl.Collator("en", { sensitivity: "base" }).compare("a", "Á"), new Intl.Collator("en", { sensitivity: "accent" }).compare("a", "A"), new Intl.Collator("en", { sensitivity: "accent" }).compare("a", "á")];
        out.collDe = ["z", "ä", "a"].sort(new Intl.Collator("de").compare);
        out.collSv = ["z", "ä", "a", "å", "ö"].sort(new Intl.Collator("sv").compare);
        out.localeCompare = ["a".localeCompare("b"), "a".localeCompare("A"), "b".localeCompare("a"), "ä".localeCompare("z", "de"), "ä".localeCompare("z", "sv"), "a".localeCompare("A", undefined, { sensitivity: "base" }), "résumé".localeCompare("resume", "en", { sensitivity: "base" }), "a".localeCompare("a")];
        out.sortNames = ["Émile", "zoe", "Zoë", "adam", "Adam", "Ådne"].sort((a, b) => a.localeCompare(b));
        out.collResolved = new Intl.Collator("en-US").resolvedOptions();
        out.plural = [0, 1, 2, 5, 1.5, "1"].map((n) => new Intl.PluralRules("en-US").select(n));
        out.ordinal = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map((n) => new Intl.PluralRules("en-US", { type: "ordinal" }).select(n));
        out.pluralRu = [1, 2, 5, 21, 1.5, 11, 0].map((n) => new Intl.PluralRules("ru").select(n));
        out.pluralAr = [0, 1, 2, 3, 11, 100].map((n) => new Intl.PluralRules("ar").select(n));
        out.pluralFr = [0, 1, 1.5, 2].map((n) => new Intl.PluralRules("fr").select(n));
        out.pluralResolved = [new Intl.PluralRules("en").resolvedOptions(), new Intl.PluralRules("en", { type: "ordinal" }).resolvedOptions().pluralCategories];
        out.words = [...new Intl.Segmenter("en", { granularity: "word" }).segment("Hello, world! It's 3.5 ok")].map((s) => [s.segment, s.index, s.isWordLike]);
        out.graphemes = [...new Intl.Segmenter().segment("e\u0301👍🏽🇫🇷a")].map((s) => [s.segment, s.index]);
        out.sentences = [...new Intl.Segmenter("en", { granularity: "sentence" }).segment("Hi there. How are you? Fine!")].map((s) => s.segment);
        out.containing = new Intl.Segmenter("en", { granularity: "word" }).segment("foo bar").containing(5);
        out.rtf = [[-1, "day"], [2, "hours"], [-3, "month"], [1, "year"], [0, "second"], [1000, "days"], [-1, "quarter"]].map(([v, u]) => new Intl.RelativeTimeFormat("en").format(v, u));
        out.rtfAuto = [[-1, "day"], [1, "day"], [0, "day"], [0, "year"], [-1, "week"], [2, "day"], [0, "second"]].map(([v, u]) => new Intl.RelativeTimeFormat("en", { numeric: "auto" }).format(v, u));
        out.list = [new Intl.ListFormat("en", { style: "long", type: "conjunction" }).format(["a", "b", "c"]), new Intl.ListFormat("en").format(["a", "b"]), new Intl.ListFormat("en", { type: "disjunction" }).format(["a", "b", "c"]), new Intl.ListFormat("en").format(["a"]), new Intl.ListFormat("en").format([])];
        out.locale = (() => { const l = new Intl.Locale("en-us"); return [l.toString(), l.language, l.region, l.baseName]; })();
        out.canonical = [Intl.getCanonicalLocales(["EN-us", "de"]), Intl.getCanonicalLocales("zh-hant-tw"), Intl.NumberFormat.supportedLocalesOf(["en-US", "de"])];
        out.tags = [String(new Intl.NumberFormat()), String(Intl), Object.prototype.toString.call(new Intl.DateTimeFormat()), Object.prototype.toString.call(new Intl.Collator())];
        return Response.json(out);
      }
      case "/errors": {
        out.err = [
          c(() => new Intl.NumberFormat("en", { style: "currency" })),
          c(() => new Intl.NumberFormat("not a locale!")),
          c(() => new Intl.DateTimeFormat("en", { timeZone: "Mars/Base" })),
          c(() => new Intl.NumberFormat("en", { maximumFractionDigits: 200 })),
          c(() => new Intl.NumberFormat("en", { style: "bogus" })),
          c(() => new Intl.NumberFormat("en", { minimumFractionDigits: 3, maximumFractionDigits: 1 })),
          c(() => new Intl.DateTimeFormat("en", { dateStyle: "short", year: "numeric" })),
          c(() => new Intl.DateTimeFormat("en").format(NaN)),
          c(() => new Intl.DateTimeFormat("en", { month: "huge" })),
          c(() => Intl.PluralRules()),
          c(() => new Intl.RelativeTimeFormat("en").format(1, "fortnight")),
          c(() => new Intl.NumberFormat("en", { style: "currency", currency: "US" })),
          c(() => (5).toLocaleString("??")),
          c(() => "a".localeCompare("b", "x_y")),
        ];
        return Response.json(out);
      }
    }
    return new Response("unknown", { status: 404 });
  }
}

export default {
  fetch(request, env) {
    return env.OBJ.get(env.OBJ.idFromName("a")).fetch(request);
  },
};

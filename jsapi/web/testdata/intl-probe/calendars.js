// calendars.js: the date in each calendar DateTimeFormat implements besides
// the Gregorian one, for dates every 61 days from 1868 to 2200 and the
// edges of eras and years. The same script runs on workerd
// (record-calendars.sh writes calendars.json.gz) and on cellhost
// (TestIntlCalendars compares). Each value is [label, output].
function calendars() {
  const cals = ["buddhist", "japanese", "roc", "persian", "indian", "hebrew", "islamic-civil", "islamic-tbla", "islamic-umalqura"];
  const days = [];
  for (let t = Date.UTC(1868, 0, 1); t < Date.UTC(2200, 0, 1); t += 61 * 86400000) days.push(t);
  for (const [y, m, d] of [[1868, 9, 7], [1868, 9, 8], [1912, 7, 29], [1912, 7, 30], [1926, 12, 24], [1926, 12, 25], [1989, 1, 7], [1989, 1, 8], [2019, 4, 30], [2019, 5, 1], [1911, 12, 31], [1912, 1, 1]]) days.push(Date.UTC(y, m - 1, d));
  const out = [];
  for (const ca of cals) {
    const f = new Intl.DateTimeFormat("en-u-ca-" + ca, { timeZone: "UTC", era: "short", year: "numeric", month: "numeric", day: "numeric" });
    const g = new Intl.DateTimeFormat("en-u-ca-" + ca, { timeZone: "UTC", month: "long" });
    for (const t of days) {
      const p = f.formatToParts(t);
      const v = ["era", "year", "month", "day"].map((k) => (p.find((x) => x.type === k) || {}).value).join("|");
      out.push([ca + " " + new Date(t).toISOString().slice(0, 10), v + "|" + g.format(t) + "|" + f.resolvedOptions().calendar]);
    }
  }
  return out;
}

package web

import (
	"strconv"
	"testing"
	"time"
)

// TestOffsetAtWall pins ICU's local-time offset rule that the generic zone
// name's golden-zone check uses: in an overlap the later instant, in a gap
// the offset from before it.
func TestOffsetAtWall(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	wall := func(y int, m time.Month, d, h, min int) int64 {
		return time.Date(y, m, d, h, min, 0, 0, time.UTC).Unix()
	}
	for _, c := range []struct {
		name string
		wall int64
		off  int
		dst  bool
	}{
		{"summer", wall(2026, 7, 1, 12, 0), 7200, true},
		{"winter", wall(2026, 1, 1, 12, 0), 3600, false},
		{"overlap takes the later (standard) time", wall(2026, 10, 25, 2, 59), 3600, false},
		{"gap takes the offset before it", wall(2026, 3, 29, 2, 30), 3600, false},
	} {
		off, dst := offsetAtWall(paris, c.wall)
		if off != c.off || dst != c.dst {
			t.Errorf("%s: %d %v, want %d %v", c.name, off, dst, c.off, c.dst)
		}
	}
}

// TestBoundedCache_StopsGrowing: keys script chooses cannot grow the cache
// past its bound, and a kept key is not built again.
func TestBoundedCache_StopsGrowing(t *testing.T) {
	c := boundedCache[string, int]{max: 3}
	builds := 0
	for i := 0; i < 10; i++ {
		c.get(strconv.Itoa(i), func() int { builds++; return i })
	}
	if len(c.m) != 3 {
		t.Fatalf("%d kept, want 3", len(c.m))
	}
	if v := c.get("1", func() int { builds++; return -1 }); v != 1 || builds != 10 {
		t.Fatalf("kept key: %d after %d builds", v, builds)
	}
	if v := c.get("9", func() int { builds++; return 9 }); v != 9 || builds != 11 {
		t.Fatalf("key past the bound: %d after %d builds", v, builds)
	}
}

// TestIntl_Session6Rules: ICU rules the probe found missing, each from
// ICU's code or ICU's data in workerd: a..aaa is the abbreviated day
// period (th "AM", not the wide "ก่อนเที่ยง"), a currency's long name
// formats with the decimal pattern (no he/fa direction marks from the
// currency pattern), Hebrew "ו" takes a hyphen before a non-Hebrew word,
// and a DateTimeFormat made twice with the same options resolves the same.
func TestIntl_Session6Rules(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for _, c := range []struct{ src, want string }{
		{`new Intl.DateTimeFormat("th-TH", {hour: "numeric", hour12: true, timeZone: "UTC"}).format(Date.UTC(2026, 2, 8, 6))`, "6 AM"},
		{`new Intl.DateTimeFormat("pt-PT", {hour: "numeric", hour12: true, timeZone: "UTC"}).format(Date.UTC(2026, 2, 8, 6))`, "6 a.m."},
		{`new Intl.NumberFormat("he-IL", {style: "currency", currency: "JPY", currencyDisplay: "name"}).format(1)`, "1 ין יפני"},
		{`new Intl.ListFormat("he", {type: "conjunction"}).format(["A", "B"])`, "A ו-B"},
		{`new Intl.ListFormat("he", {type: "conjunction"}).format(["א", "ב"])`, "א וב"},
		{`new Intl.DateTimeFormat("zh-TW", {dateStyle: "medium", timeStyle: "medium", timeZone: "UTC"}).format(Date.UTC(2026, 2, 8, 6))`, "2026年3月8日 清晨6:00:00"},
		{`new Intl.DateTimeFormat("nl-NL", {hour: "numeric", timeZoneName: "longGeneric", timeZone: "Europe/Berlin"}).format(Date.UTC(2026, 9, 25, 0, 59, 1))`, "02h Midden-Europese tijd (Duitsland)"},
		{`(() => { const a = new Intl.DateTimeFormat("de-DE", {dateStyle: "medium", timeZone: "UTC"}); const b = new Intl.DateTimeFormat("de-DE", {dateStyle: "medium", timeZone: "UTC"}); a.resolvedOptions().x = 1; return JSON.stringify(b.resolvedOptions()) + b.format(0); })()`, `{"locale":"de-DE","calendar":"gregory","numberingSystem":"latn","timeZone":"UTC","dateStyle":"medium"}01.01.1970`},
	} {
		v, err := rt.RunString(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if v.String() != c.want {
			t.Errorf("%s\n got  %q\n want %q", c.src, v.String(), c.want)
		}
	}
}

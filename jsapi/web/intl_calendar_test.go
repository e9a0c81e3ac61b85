package web

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestIntlCalendars compares the date of every implemented non-Gregorian
// calendar (era, year, month, day, month name, resolved calendar) with
// workerd's, recorded by testdata/intl-probe/record-calendars.sh: 2 000
// dates from 1868 to 2200 per calendar (islamic-umalqura: ICU's table
// recorded by cldr/record-umalqura.sh over 1882-2174, the civil calendar
// outside, as ICU). Japanese dates before Meiji
// (1868-10-23) are skipped: cellhost's Japanese calendar starts there.
// The era names of roc and indian are not compared: npm's newest
// cldr-cal-roc-full and cldr-cal-indian-full are CLDR 28 ("Saka", "Before
// R.O.C."; ICU 78: "Śaka", "B.R.O.C."), listed in known-differences.txt.
func TestIntlCalendars(t *testing.T) {
	src, err := os.ReadFile("testdata/intl-probe/calendars.js")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/intl-probe/calendars.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var want [][2]string
	if err := json.NewDecoder(zr).Decode(&want); err != nil {
		t.Fatal(err)
	}
	rt, _ := newWebRuntime(t)
	v, err := rt.RunString(string(src) + "\nJSON.stringify(calendars())")
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	if err := json.Unmarshal([]byte(v.String()), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d values, workerd %d", len(got), len(want))
	}
	bad := 0
	for i, w := range want {
		if strings.HasPrefix(w[0], "japanese ") && w[0][9:] < "1868-10-23" {
			continue
		}
		g := got[i]
		if strings.HasPrefix(w[0], "roc ") || strings.HasPrefix(w[0], "indian ") {
			_, gr, _ := strings.Cut(g[1], "|")
			_, wr, _ := strings.Cut(w[1], "|")
			g[1], w[1] = gr, wr
		}
		if g != w {
			if bad++; bad <= 20 || os.Getenv("INTL_CAL_ALL") != "" {
				t.Errorf("%s: %q, workerd %q", w[0], g[1], w[1])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d dates differ", bad, len(want))
	}
}

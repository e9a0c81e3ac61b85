package web

import (
	"testing"

	"github.com/cellhost/cellhost/jsapi/web/cldr"
)

// TestBestPattern pins the generator on patterns V8/ICU 78 give (recorded
// with Intl.DateTimeFormat on workerd; see testdata/intl-probe).
func TestBestPattern(t *testing.T) {
	for _, c := range []struct {
		loc        string
		hour       byte
		skel, want string
	}{
		{"en", 'h', "yMd", "M/d/y"},
		{"en", 'h', "yMMMMd", "MMMM d, y"},
		{"en", 'h', "jm", "h:mm\u202fa"},
		{"en", 'h', "Hm", "HH:mm"},
		{"de", 'H', "yMMdd", "dd.MM.y"},
		{"en", 'h', "EEEEyMMMMdjm", "EEEE, MMMM d, y 'at' h:mm\u202fa"},
	} {
		d := cldr.Locale(c.loc)
		g := newDTPG(d, d.Calendar("gregorian"), c.hour)
		if got := g.bestPattern(c.skel); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.loc, c.skel, got, c.want)
		}
	}
}

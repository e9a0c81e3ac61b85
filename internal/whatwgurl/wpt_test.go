package whatwgurl

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The URL Standard's own tests, from web-platform-tests (testdata/README.md):
// urltestdata.json (parsing, with and without a base) and setters_tests.json
// (the URL API setters), read from url/resources/ of a web-platform-tests
// checkout named by CELLHOST_WPT_ROOT (the repository does not carry them). Cases cellhost's parser gets wrong are listed in
// testdata/known_failures.txt; the test fails when another case fails, and
// when a listed case passes (so that the list stays exact).

type wptURLCase struct {
	Input    string  `json:"input"`
	Base     *string `json:"base"`
	Failure  bool    `json:"failure"`
	Href     *string `json:"href"`
	Origin   *string `json:"origin"`
	Protocol *string `json:"protocol"`
	Username *string `json:"username"`
	Password *string `json:"password"`
	Host     *string `json:"host"`
	Hostname *string `json:"hostname"`
	Port     *string `json:"port"`
	Pathname *string `json:"pathname"`
	Search   *string `json:"search"`
	Hash     *string `json:"hash"`
}

// components compares u with what a case expects, returning the first
// difference ("" when there is none).
func (c *wptURLCase) mismatch(u *URL) string {
	for _, f := range []struct {
		name string
		want *string
		got  string
	}{
		{"href", c.Href, u.Href()}, {"origin", c.Origin, u.Origin()}, {"protocol", c.Protocol, u.Protocol()},
		{"username", c.Username, u.Username()}, {"password", c.Password, u.Password()}, {"host", c.Host, u.Host()},
		{"hostname", c.Hostname, u.Hostname()}, {"port", c.Port, u.Port()}, {"pathname", c.Pathname, u.Pathname()},
		{"search", c.Search, u.Search()}, {"hash", c.Hash, u.Hash()},
	} {
		if f.want != nil && *f.want != f.got {
			return fmt.Sprintf("%s = %q, want %q", f.name, f.got, *f.want)
		}
	}
	return ""
}

func readWPT(t *testing.T, name string, v interface{}) {
	t.Helper()
	root := os.Getenv("CELLHOST_WPT_ROOT")
	if root == "" {
		t.Skip("CELLHOST_WPT_ROOT is not set: no web-platform-tests checkout to read url/resources/" + name + " from")
	}
	b, err := os.ReadFile(filepath.Join(root, "url", "resources", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// wptParseFailures runs urltestdata.json and returns the failing cases'
// ids with what went wrong, and how many cases ran.
func wptParseFailures(t *testing.T) (map[string]string, int) {
	var raw []json.RawMessage
	readWPT(t, "urltestdata.json", &raw)
	fails := map[string]string{}
	n := 0
	for _, r := range raw {
		var c wptURLCase
		if json.Unmarshal(r, &c) != nil || c.Input == "" && c.Href == nil && !c.Failure {
			continue // a comment string
		}
		n++
		base := "<none>"
		if c.Base != nil {
			base = *c.Base
		}
		id := fmt.Sprintf("parse %q against %q", c.Input, base)
		var b *URL
		if c.Base != nil {
			var err error
			if b, err = Parse(*c.Base, nil); err != nil {
				fails[id] = "base does not parse"
				continue
			}
		}
		u, err := Parse(c.Input, b)
		switch {
		case c.Failure && err == nil:
			fails[id] = "parsed as " + u.Href() + ", want failure"
		case !c.Failure && err != nil:
			fails[id] = "failed, want " + *c.Href
		case !c.Failure:
			if m := c.mismatch(u); m != "" {
				fails[id] = m
			}
		}
	}
	return fails, n
}

// wptSetterFailures runs setters_tests.json.
func wptSetterFailures(t *testing.T) (map[string]string, int) {
	var raw map[string]json.RawMessage
	readWPT(t, "setters_tests.json", &raw)
	fails := map[string]string{}
	n := 0
	for setter, r := range raw {
		if setter == "comment" {
			continue
		}
		var cases []struct {
			Href     string     `json:"href"`
			NewValue string     `json:"new_value"`
			Expected wptURLCase `json:"expected"`
		}
		if err := json.Unmarshal(r, &cases); err != nil {
			t.Fatalf("setters %s: %v", setter, err)
		}
		for _, c := range cases {
			n++
			id := fmt.Sprintf("set %s of %q to %q", setter, c.Href, c.NewValue)
			u, err := Parse(c.Href, nil)
			if err != nil {
				fails[id] = "href does not parse"
				continue
			}
			nu := SetComponent(u, setter, c.NewValue)
			if nu == nil {
				fails[id] = "setter failed"
				continue
			}
			if m := c.Expected.mismatch(nu); m != "" {
				fails[id] = m
			}
		}
	}
	return fails, n
}

func readKnownFailures(t *testing.T) map[string]bool {
	f, err := os.Open("testdata/known_failures.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, _, _ := strings.Cut(line, "\t")
		known[id] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return known
}

func TestWPT(t *testing.T) {
	pf, pn := wptParseFailures(t)
	sf, sn := wptSetterFailures(t)
	t.Logf("urltestdata.json: %d of %d pass; setters_tests.json: %d of %d pass", pn-len(pf), pn, sn-len(sf), sn)
	all := map[string]string{}
	for k, v := range pf {
		all[k] = v
	}
	for k, v := range sf {
		all[k] = v
	}
	if os.Getenv("WPT_KNOWN_GEN") != "" {
		var lines []string
		for id, why := range all {
			lines = append(lines, id+"\t"+why)
		}
		sort.Strings(lines)
		head := "# WPT URL cases cellhost's parser fails (id, tab, what is wrong); regenerate with WPT_KNOWN_GEN=1.\n"
		if err := os.WriteFile("testdata/known_failures.txt", []byte(head+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	known := readKnownFailures(t)
	for id, why := range all {
		if !known[id] {
			t.Errorf("%s: %s", id, why)
		}
	}
	for id := range known {
		if _, ok := all[id]; !ok {
			t.Errorf("%s passes now: remove it from testdata/known_failures.txt", id)
		}
	}
}

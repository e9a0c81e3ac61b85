package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

// TestWeb_URLWPT runs WPT's URL tests (url/resources/ of the
// web-platform-tests checkout at CELLHOST_WPT_ROOT, as internal/whatwgurl's
// TestWPT) through the JS URL class: parsing with URL(input, base), and the
// setters. The cases it fails are listed in testdata/url_known_failures.txt;
// the test fails when another case fails and when a listed case passes.
func TestWeb_URLWPT(t *testing.T) {
	root := os.Getenv("CELLHOST_WPT_ROOT")
	if root == "" {
		t.Skip("CELLHOST_WPT_ROOT is not set: no web-platform-tests checkout to read url/resources/ from")
	}
	parse, err := os.ReadFile(filepath.Join(root, "url", "resources", "urltestdata.json"))
	if err != nil {
		t.Fatal(err)
	}
	setters, err := os.ReadFile(filepath.Join(root, "url", "resources", "setters_tests.json"))
	if err != nil {
		t.Fatal(err)
	}
	rt, _ := newWebRuntime(t)
	rt.Set("parseCases", string(parse))
	rt.Set("setterCases", string(setters))
	out := jstest.Run(t, rt, `(() => {
		const keys = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
		const fails = [];
		let parsed = 0, set = 0;
		const check = (id, u, want) => {
			for (const k of keys) {
				if (k in want && u[k] !== want[k]) { fails.push(id + "\t" + k + " = " + JSON.stringify(u[k]) + ", want " + JSON.stringify(want[k])); return; }
			}
		};
		for (const c of JSON.parse(parseCases)) {
			if (typeof c === "string") continue;
			parsed++;
			const id = "parse " + JSON.stringify(c.input) + " against " + JSON.stringify(c.base);
			let u;
			try { u = c.base === null ? new URL(c.input) : new URL(c.input, c.base); } catch (e) {
				if (!c.failure) fails.push(id + "\tthrew " + e.message);
				continue;
			}
			if (c.failure) { fails.push(id + "\tparsed as " + u.href + ", want failure"); continue; }
			check(id, u, c);
		}
		const all = JSON.parse(setterCases);
		for (const setter of Object.keys(all)) {
			if (setter === "comment") continue;
			for (const c of all[setter]) {
				set++;
				const id = "set " + setter + " of " + JSON.stringify(c.href) + " to " + JSON.stringify(c.new_value);
				try {
					const u = new URL(c.href);
					u[setter] = c.new_value;
					check(id, u, c.expected);
				} catch (e) { fails.push(id + "\tthrew " + e.message); }
			}
		}
		return JSON.stringify({ parsed, set, fails });
	})()`).String()
	var res struct {
		Parsed, Set int
		Fails       []string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	t.Logf("WPT through the JS URL class: %d parse and %d setter cases, %d fail", res.Parsed, res.Set, len(res.Fails))
	const known = "testdata/url_known_failures.txt"
	if os.Getenv("WPT_KNOWN_GEN") != "" {
		sort.Strings(res.Fails)
		head := "# WPT URL cases the JS URL class fails (id, tab, what is wrong); regenerate with WPT_KNOWN_GEN=1.\n"
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(known, []byte(head+strings.Join(res.Fails, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(known)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			id, _, _ := strings.Cut(line, "\t")
			listed[id] = true
		}
	}
	failing := map[string]bool{}
	for _, f := range res.Fails {
		id, why, _ := strings.Cut(f, "\t")
		failing[id] = true
		if !listed[id] {
			t.Errorf("%s: %s", id, why)
		}
	}
	for id := range listed {
		if !failing[id] {
			t.Errorf("%s passes now: remove it from %s", id, known)
		}
	}
}

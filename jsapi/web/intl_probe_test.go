package web

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestIntlProbe runs testdata/intl-probe/probe.js (≈40 000 Intl outputs
// over the 40 most used locales) and compares them with workerd's,
// recorded by record.sh. Every difference must match a line of
// known-differences.txt (a label prefix, its reason and, optionally,
// replacements "cellhost=>workerd" separated by " ;; ": then the
// difference is explained only when they turn cellhost's value into
// workerd's, so a line cannot hide another difference); the test logs the
// count per family, and fails on a difference not listed and on a listed
// prefix that no longer differs (so the list only shrinks). Until the
// unexplained count reaches 0, probeRatchet bounds it: the test fails
// when more values differ than it allows, and asks for it to be lowered
// when fewer do.
const probeRatchet = 0

// By default every 10th value is computed (every 40th under -race); set
// INTL_PROBE_FULL=1 for all of them (the count reported in docs).
func TestIntlProbe(t *testing.T) {
	stride := probeStride
	if os.Getenv("INTL_PROBE_FULL") != "" {
		stride = 1
	}
	src, err := os.ReadFile("testdata/intl-probe/probe.js")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/intl-probe/expected.json.gz")
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
	v, err := rt.RunString(string(src) + "\nJSON.stringify(probe(" + strconv.Itoa(stride) + "))")
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]*string
	if err := json.Unmarshal([]byte(v.String()), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("probe gave %d values, workerd %d", len(got), len(want))
	}
	known := readKnown(t, "testdata/intl-probe/known-differences.txt")
	used := map[string]int{}
	family := map[string]int{}
	total, unexplained := 0, 0
	var dump strings.Builder // INTL_PROBE_DUMP=file writes every difference there
	compared := 0
	for i, w := range want {
		g := got[i]
		if *g[0] != w[0] {
			t.Fatalf("value %d: label %q, workerd's %q", i, *g[0], w[0])
		}
		if g[1] == nil {
			continue
		}
		compared++
		if *g[1] == w[1] {
			continue
		}
		total++
		fam, _, _ := strings.Cut(w[0], " ")
		family[fam]++
		matched := false
		for _, k := range known {
			if strings.HasPrefix(w[0], k.prefix) && k.explains(*g[1], w[1]) {
				used[k.prefix]++
				matched = true
				break
			}
		}
		mark := "known"
		if !matched {
			unexplained++
			mark = "UNEXPLAINED"
		}
		dump.WriteString(mark + " " + w[0] + "\n\tworkerd:  " + strconv.Quote(w[1]) + "\n\tcellhost: " + strconv.Quote(*g[1]) + "\n")
	}
	if p := os.Getenv("INTL_PROBE_DUMP"); p != "" {
		if err := os.WriteFile(p, []byte(dump.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var fams []string
	for k, n := range family {
		fams = append(fams, k+"="+itoa(n))
	}
	sort.Strings(fams)
	t.Logf("%d of %d values compared, %d differ from workerd (%s), %d not in known-differences.txt", compared, len(want), total, strings.Join(fams, " "), unexplained)
	if stride != 1 {
		// a sample: its differences are bounded by the full run's
		if unexplained > probeRatchet/stride*2+10 {
			t.Errorf("%d unexplained differences in a 1/%d sample, more than probeRatchet (%d) suggests: run INTL_PROBE_FULL=1 INTL_PROBE_DUMP=/tmp/diffs.txt", unexplained, stride, probeRatchet)
		}
		return
	}
	switch {
	case unexplained > probeRatchet:
		t.Errorf("%d unexplained differences, more than probeRatchet (%d): run with INTL_PROBE_DUMP=/tmp/diffs.txt to see them", unexplained, probeRatchet)
	case unexplained < probeRatchet:
		t.Errorf("%d unexplained differences, fewer than probeRatchet (%d): lower it", unexplained, probeRatchet)
	}
	for _, k := range known {
		if used[k.prefix] == 0 {
			t.Errorf("known-differences.txt: %q no longer differs; remove it", k.prefix)
		}
	}
}

// knownDiff is a line of known-differences.txt.
type knownDiff struct {
	prefix string
	repl   []string // old, new pairs; nil: any difference under prefix
}

// explains reports whether the line accounts for cellhost's value got
// where workerd gave want.
func (k knownDiff) explains(got, want string) bool {
	if k.repl == nil {
		return true
	}
	return strings.NewReplacer(k.repl...).Replace(got) == want
}

func readKnown(t *testing.T, path string) []knownDiff {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []knownDiff
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		k := knownDiff{prefix: fields[0]}
		if len(fields) > 2 {
			for _, r := range strings.Split(fields[2], " ;; ") {
				old, nw, ok := strings.Cut(r, "=>")
				if !ok {
					t.Fatalf("known-differences.txt: replacement %q has no =>", r)
				}
				k.repl = append(k.repl, old, nw)
			}
		}
		out = append(out, k)
	}
	return out
}

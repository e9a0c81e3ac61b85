package workerdtests

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/internal/wpt"
)

func readSuite(t *testing.T, p string) *Suite {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseCapnp(string(b))
	if err != nil {
		t.Fatal(err)
	}
	st, err := ReadSuite(f, filepath.Base(p))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The config reader finds the tested worker, its modules, flags and
// bindings (adjacent strings joined, escapes read), and says why a config
// cannot run.
func TestReadSuite(t *testing.T) {
	st := readSuite(t, filepath.Join("testdata", "selftest", "runner-self-test.wd-test"))
	if st.Service != "main" || st.Unsupported != "" {
		t.Fatalf("service %q, unsupported %q", st.Service, st.Unsupported)
	}
	wantMods := []Module{{Name: "worker", Kind: "esModule", File: "runner-self-test.js"}, {Name: "helper", Kind: "esModule", File: "runner-self-helper.js"}}
	if !reflect.DeepEqual(st.Modules, wantMods) {
		t.Errorf("modules %+v", st.Modules)
	}
	if !reflect.DeepEqual(st.Flags, []string{"nodejs_compat"}) {
		t.Errorf("flags %v", st.Flags)
	}
	wantB := []Binding{{"GREETING", "text", "hi there", ""}, {"CONF", "json", `{"n": 2}`, ""},
		{"ns", "durableObjectNamespace", "Counter", ""}, {"SELF", "service", "main", ""}}
	if !reflect.DeepEqual(st.Bindings, wantB) {
		t.Errorf("bindings %+v", st.Bindings)
	}
	q := readSuite(t, filepath.Join("testdata", "selftest", "needs-queue-test.wd-test"))
	want := "env.OTHER is a service binding to elsewhere (a worker service; cellhost runs one worker); env.Q is a queue binding"
	if q.Unsupported != want {
		t.Errorf("unsupported:\n got  %s\n want %s", q.Unsupported, want)
	}
	bf, err := ParseCapnp("const w :T = (modules = [(name = \"m\", esModule =\n  `export default 1;\n  `// two\n)]);")
	if err != nil {
		t.Fatal(err)
	}
	mods := modulesOf(bf.Consts["w"].(Struct), func(v Value) Value { return v })
	if len(mods) != 1 || mods[0].Source != "export default 1;\n// two\n" || mods[0].File != "__inline_m.js" {
		t.Errorf("block text module: %+v", mods)
	}
	if _, err := ParseCapnp(`const x :T = (a = "unterminated);`); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad input: %v", err)
	}
}

// The runner runs a worker written in the form of workerd's tests through
// cellhost: every export with test(), in the namespace's order, bindings
// from the config, a failure with its message.
func TestRunnerSelfTest(t *testing.T) {
	dir := filepath.Join("testdata", "selftest")
	st := readSuite(t, filepath.Join(dir, "runner-self-test.wd-test"))
	r := runSuite(t, dir, st)
	if r.Harness.Status != wpt.StatusPass {
		t.Fatalf("harness: %s", r.Harness.Message)
	}
	var names []string
	for _, s := range r.Results {
		names = append(names, s.Name)
		want := wpt.StatusPass
		if s.Name == "fails" {
			want = wpt.StatusFail
			if !strings.Contains(s.Message, "this test fails on purpose") {
				t.Errorf("fails: message %q", s.Message)
			}
		}
		if s.Status != want {
			t.Errorf("%s: %s %s", s.Name, wpt.StatusName(s.Status), s.Message)
		}
	}
	if want := []string{"bindings", "default", "durable", "fails", "selfService"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tests %v, want %v", names, want)
	}
}

// A narrowed run that rewrites the ratchet keeps the other files' lines:
// only the files it ran are replaced, and the lines stay grouped by file.
func TestKeepLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "exp.txt")
	newRun := "# header\nb.wd-test\tt2\tFAIL: new\n"
	old := "# header\na.wd-test\tt1\tFAIL: a\nb.wd-test\tt1\tFAIL: old\nc.wd-test\tt3\tFAIL: c\n"
	if err := os.WriteFile(p, []byte(newRun), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := keepLines(p, old, []string{"b.wd-test"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	want := "# header\na.wd-test\tt1\tFAIL: a\nb.wd-test\tt2\tFAIL: new\nc.wd-test\tt3\tFAIL: c\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

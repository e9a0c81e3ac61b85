package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// bigModule is a worker with a large generated table: bundling and
// compiling it makes many times its live size in garbage, as a real
// library does.
func bigModule() string {
	var b strings.Builder
	b.WriteString("const table = {\n")
	for i := 0; i < 12000; i++ {
		fmt.Fprintf(&b, "  k%d: { id: %d, name: \"entry number %d\", tags: [\"a%d\", \"b%d\"], f(x) { return x + %d; } },\n", i, i, i, i%7, i%11, i)
	}
	b.WriteString("};\nexport default { fetch() { return new Response(String(Object.keys(table).length)); } };\n")
	return b.String()
}

func rssOf(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// Once cellhost dev serves, its RSS follows the live heap, not the build's
// peak: the build's garbage is collected and given back (buildGC). The
// same project under the old settings (CELLHOST_BUILD_GC=off: GOGC 1000
// throughout) is the baseline, in the same run.
func TestDev_MemoryAfterBuild(t *testing.T) {
	dir := writeProject(t, map[string]string{"index.js": bigModule()})
	measure := func(env ...string) int64 {
		p := runDevProc(t, dir, env, "index.js", "--port", "0", "--state", t.TempDir(), "--no-watch")
		if _, body, _ := p.get(t, "/"); body != "12000" {
			t.Fatalf("GET / = %q", body)
		}
		rss := rssOf(t, p.cmd.Process.Pid)
		p.stop()
		return rss
	}
	old := measure("CELLHOST_BUILD_GC=off", "GOMEMLIMIT=", "GOGC=")
	now := measure("GOMEMLIMIT=", "GOGC=")
	t.Logf("RSS once serving: %d MB with GOGC 1000 throughout, %d MB with the build collected", old>>20, now>>20)
	if now*10 > old*7 {
		t.Errorf("RSS once serving is %d MB, not 30%% below the %d MB of GOGC 1000 throughout", now>>20, old>>20)
	}
}
